package features

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	def := Default()
	for _, tc := range []struct {
		list    string
		want    Set
		unknown []string
	}{
		{"default", def, nil},
		{"", Set{}, nil},
		{"var,float", Set{Var: true, Float: true}, nil},
		{"+true_signature", func() Set { s := def; s.TrueSignature = true; return s }(), nil},
		{"default,global_var,true_signature", func() Set { s := def; s.GlobalVar = true; s.TrueSignature = true; return s }(), nil},
		// pahole's --btf_gen_all asks for "all", which no longer exists: nothing is on.
		{"all", Set{}, []string{"all"}},
		{"enum64, bogus ,type_tag", Set{Enum64: true, TypeTag: true}, []string{"bogus"}},
	} {
		got, unknown, err := Parse(tc.list, false)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.list, err)
		}
		if got != tc.want || !reflect.DeepEqual(unknown, tc.unknown) {
			t.Errorf("Parse(%q) = %v %v, want %v %v", tc.list, got.Enabled(), unknown, tc.want.Enabled(), tc.unknown)
		}
	}
	if _, _, err := Parse("var,bogus", true); err == nil {
		t.Error("strict parse accepted an unknown name")
	}
}

func TestDefaultMatchesPahole(t *testing.T) {
	// The reference README: default means encode_force, var, float, decl_tag,
	// type_tag, enum64, optimized_func, consistent_func, decl_tag_kfuncs.
	want := "encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs"
	if got := Default().String(); got != want {
		t.Errorf("Default() = %s, want %s", got, want)
	}
	if got := Legacy().String(); got != "var,decl_tag,type_tag,enum64" {
		t.Errorf("Legacy() = %s", got)
	}
	if len(Names()) != 15 {
		t.Errorf("%d features, want pahole's 15", len(Names()))
	}
}
