package btf

import "testing"

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		KindVoid: "UNKN", KindInt: "INT", KindPtr: "PTR", KindArray: "ARRAY", KindStruct: "STRUCT",
		KindUnion: "UNION", KindEnum: "ENUM", KindFwd: "FWD", KindTypedef: "TYPEDEF",
		KindVolatile: "VOLATILE", KindConst: "CONST", KindRestrict: "RESTRICT", KindFunc: "FUNC",
		KindFuncProto: "FUNC_PROTO", KindVar: "VAR", KindDatasec: "DATASEC", KindFloat: "FLOAT",
		KindDeclTag: "DECL_TAG", KindTypeTag: "TYPE_TAG", KindEnum64: "ENUM64", Kind(42): "KIND(42)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
	if KindEnum64 != 19 || KindFuncProto != 13 || KindDeclTag != 17 {
		t.Errorf("kind numbering differs from BTF_KIND_*")
	}
}
