package btf

import (
	"encoding/binary"
	"testing"
)

// TestValidatorNotStricterThanTheKernel: shapes the validator accepts,
// which a stricter reading of the kernel's rules would refuse, load.
func TestValidatorNotStricterThanTheKernel(t *testing.T) {
	for _, c := range []validationCase{
		{"func named like a clone", "", func(t *Types, s *Strings) {
			t.AddFunc(s.Add("f.isra.0"), t.AddFuncProto(1, nil), 0)
		}},
		{"anonymous int", "", func(t *Types, s *Strings) { t.AddInt(0, 4, 0, 0, 32) }},
		{"int named with spaces", "", func(t *Types, s *Strings) { t.AddInt(s.Add("long unsigned int"), 8, 0, 0, 64) }},
		{"varargs", "", func(t *Types, s *Strings) {
			t.AddFuncProto(1, []Param{{Name: s.Add("x"), Type: 1}, {}})
		}},
		// What the encoder writes in place of pahole's overlapping
		// entries: a VAR no DATASEC holds, entries that touch.
		{"var outside any datasec", "", func(t *Types, s *Strings) {
			a := t.AddVar(s.Add("a"), 1, 1)
			t.AddVar(s.Add("b"), 1, 1)
			c := t.AddVar(s.Add("c"), 1, 1)
			t.AddDatasec(s.Add(".data"), 12, []VarSecinfo{{Type: a, Offset: 0, Size: 4}, {Type: c, Offset: 4, Size: 4}})
		}},
	} {
		strs := NewStrings()
		types := NewTypes(strs)
		types.AddInt(strs.Add("int"), 4, IntSigned, 0, 32)
		c.build(types, strs)
		if err := types.Validate(); err != nil {
			t.Errorf("%s: validator: %v", c.name, err)
		}
		raw, err := types.Marshal(binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		if err := kernelLoad(t, raw); err != nil {
			t.Errorf("%s: the kernel refuses it: %v", c.name, err)
		}
	}
}
