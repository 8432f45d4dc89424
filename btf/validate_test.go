package btf

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/internal/refbtf"
)

// TestValidateAcceptsReferences: what pahole wrote for the corpus kernel
// (which the kernel loads) passes, for vmlinux and each module's split BTF;
// its global_var output is refused for the DATASEC entries that overlap
// one before them, and passes without them.
func TestValidateAcceptsReferences(t *testing.T) {
	base := parseReference(t, "amd64.default.btf", nil)
	if err := base.Validate(); err != nil {
		t.Errorf("amd64.default.btf: %v", err)
	}
	raw := readReference(t, "amd64.all.btf")
	err := parseReference(t, "amd64.all.btf", nil).Validate()
	if err == nil || !strings.Contains(err.Error(), "overlaps an entry before it") {
		t.Errorf("amd64.all.btf: %v, want the overlapping DATASEC entries refused", err)
	}
	fixed, dropped, err := refbtf.WithoutOverlaps(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) == 0 {
		t.Fatal("amd64.all.btf: no overlapping DATASEC entries found")
	}
	types, err := Parse(fixed, nil)
	if err != nil {
		t.Fatalf("amd64.all.btf without %d entries: %v", len(dropped), err)
	}
	if err := types.Validate(); err != nil {
		t.Errorf("amd64.all.btf without %d entries: %v", len(dropped), err)
	}
	for _, m := range corpus.Modules() {
		if err := parseReference(t, "modules/"+m+".default.btf", base).Validate(); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestValidateRefusesWhatTheKernelRefuses builds one small BTF per rule of
// the kernel's verifier that btfgate's writer must never break.
// validationCase is one BTF that breaks a rule of the kernel's verifier:
// build adds the offending types after an int.
type validationCase struct {
	name, want string
	build      func(t *Types, s *Strings)
}

// validationCases are the rules btfgate's writer must never break, one
// small BTF each.
func validationCases() []validationCase {
	return []validationCase{
		{"typedef to itself", "itself", func(t *Types, s *Strings) {
			t.AddRef(KindTypedef, s.Add("self"), t.NextID())
		}},
		{"typedef cycle", "itself", func(t *Types, s *Strings) {
			id := t.NextID()
			t.AddRef(KindTypedef, s.Add("a"), id+1)
			t.AddRef(KindConst, 0, id)
		}},
		{"struct holding itself", "by value", func(t *Types, s *Strings) {
			id := t.NextID()
			t.AddStruct(false, s.Add("s"), 8, []Member{{Name: s.Add("me"), Type: id}})
		}},
		{"array const typedef array", "by value", func(t *Types, s *Strings) {
			id := t.NextID()
			t.AddArray(id+1, 1, 2)
			t.AddRef(KindConst, 0, id+2)
			t.AddRef(KindTypedef, s.Add("arr"), id)
		}},
		{"func without prototype", "FUNC prototype is void", func(t *Types, s *Strings) {
			t.AddFunc(s.Add("f"), 0, 0)
		}},
		{"func on an int", "not a FUNC_PROTO", func(t *Types, s *Strings) {
			t.AddFunc(s.Add("f"), 1, 0)
		}},
		{"bad func name", "not a C identifier", func(t *Types, s *Strings) {
			t.AddFunc(s.Add("f-x"), t.AddFuncProto(1, nil), 0)
		}},
		{"pointer loop", "loop of modifiers", func(t *Types, s *Strings) {
			id := t.NextID()
			t.AddRef(KindPtr, 0, id+1)
			t.AddRef(KindVolatile, 0, id)
		}},
		{"bad var name", "VAR name", func(t *Types, s *Strings) {
			t.AddVar(s.Add("a b"), 1, 1)
		}},
		{"void parameter in the middle", "varargs", func(t *Types, s *Strings) {
			t.AddFuncProto(1, []Param{{Type: 0}, {Name: s.Add("x"), Type: 1}})
		}},
		{"empty decl tag", "empty name", func(t *Types, s *Strings) {
			p := t.AddFuncProto(1, []Param{{Name: s.Add("x"), Type: 1}})
			t.AddDeclTag(s.Add(""), t.AddFunc(s.Add("f"), p, 0), -1)
		}},
		{"decl tag past the last parameter", "component 1 of a FUNC with 1 parameters", func(t *Types, s *Strings) {
			p := t.AddFuncProto(1, []Param{{Name: s.Add("x"), Type: 1}})
			t.AddDeclTag(s.Add("tag"), t.AddFunc(s.Add("f"), p, 0), 1)
		}},
		{"datasec entry past the section", "leaves the section", func(t *Types, s *Strings) {
			a := t.AddVar(s.Add("a"), 1, 1)
			t.AddDatasec(s.Add(".data..percpu"), 4, []VarSecinfo{{Type: a, Offset: 2, Size: 4}})
		}},
		{"datasec entries overlapping", "overlaps an entry before it", func(t *Types, s *Strings) {
			a := t.AddVar(s.Add("a"), 1, 1)
			b := t.AddVar(s.Add("b"), 1, 1)
			t.AddDatasec(s.Add(".data..percpu"), 8, []VarSecinfo{{Type: a, Offset: 0, Size: 4}, {Type: b, Offset: 2, Size: 4}})
		}},
		{"datasec entry repeated", "overlaps an entry before it", func(t *Types, s *Strings) {
			a := t.AddVar(s.Add("a"), 1, 1)
			t.AddDatasec(s.Add(".data"), 4, []VarSecinfo{{Type: a, Offset: 0, Size: 4}, {Type: a, Offset: 0, Size: 4}})
		}},
		{"datasec entries out of order", "overlaps an entry before it", func(t *Types, s *Strings) {
			a := t.AddVar(s.Add("a"), 1, 1)
			b := t.AddVar(s.Add("b"), 1, 1)
			t.AddDatasec(s.Add(".data"), 8, []VarSecinfo{{Type: a, Offset: 4, Size: 4}, {Type: b, Offset: 0, Size: 4}})
		}},
		{"datasec entry smaller than its type", "smaller than its type's 8 bytes", func(t *Types, s *Strings) {
			arr := t.AddArray(1, 1, 2)
			a := t.AddVar(s.Add("a"), arr, 1)
			t.AddDatasec(s.Add(".data"), 8, []VarSecinfo{{Type: a, Offset: 0, Size: 4}})
		}},
		{"var of a forward declaration", "has no size", func(t *Types, s *Strings) {
			fwd := t.AddFwd(s.Add("s"), false)
			t.AddVar(s.Add("a"), t.AddRef(KindTypedef, s.Add("s_t"), fwd), 1)
		}},
		{"datasec entry not a var", "not a VAR", func(t *Types, s *Strings) {
			t.AddDatasec(s.Add(".data"), 8, []VarSecinfo{{Type: 1, Offset: 0, Size: 4}})
		}},
		{"members out of order", "before the previous member", func(t *Types, s *Strings) {
			t.AddStruct(false, s.Add("s"), 8, []Member{{Name: s.Add("b"), Type: 1, BitOffset: 32}, {Name: s.Add("a"), Type: 1}})
		}},
		{"reference past the end", "past the last type", func(t *Types, s *Strings) {
			t.AddRef(KindPtr, 0, 99)
		}},
	}
}

// TestValidateRefusesWhatTheKernelRefuses checks each validation case
// fails with an error naming a type.
func TestValidateRefusesWhatTheKernelRefuses(t *testing.T) {
	for _, c := range validationCases() {
		t.Run(c.name, func(t *testing.T) {
			strs := NewStrings()
			types := NewTypes(strs)
			types.AddInt(strs.Add("int"), 4, IntSigned, 0, 32)
			if err := types.Validate(); err != nil {
				t.Fatalf("the int alone: %v", err)
			}
			c.build(types, strs)
			err := types.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "type [") {
				t.Errorf("Validate = %v, want an error naming a type and %q", err, c.want)
			}
		})
	}
}

// TestValidateRefusesNoTypes: BTF that is not split and holds no types is
// refused, as the kernel refuses it ("No type found"); the running kernel
// agrees where it lets this process load BTF.
func TestValidateRefusesNoTypes(t *testing.T) {
	empty := NewTypes(NewStrings())
	err := empty.Validate()
	if err == nil || !strings.Contains(err.Error(), "no types") {
		t.Fatalf("Validate = %v, want no types refused", err)
	}
	raw, err := empty.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if binary.NativeEndian.Uint16([]byte{0x9f, 0xeb}) == 0xeb9f {
		if err := kernelLoad(t, raw); err == nil {
			t.Errorf("the running kernel loads BTF without types")
		}
	}
}
