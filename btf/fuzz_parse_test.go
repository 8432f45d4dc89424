package btf

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// splitSmall builds split BTF on base (smallTypes parsed): types that
// refer to base types and to each other, and base strings.
func splitSmall(tb testing.TB, base *Types) *Types {
	tb.Helper()
	ty := NewSplitTypes(base)
	s := ty.Strings.Add
	first := ty.FirstID()
	ty.AddRef(KindPtr, 0, 3) // first: *struct s (base)
	ty.AddStruct(false, s("mod_s"), 16, []Member{{Name: s("a"), Type: 1}, {Name: s("p"), Type: first, BitOffset: 64}})
	ty.AddFuncProto(1, []Param{{Name: s("x"), Type: first + 1}})
	ty.AddFunc(s("mod_f"), first+2, FuncGlobal)
	ty.AddRef(KindTypedef, s("int"), 1)
	if err := ty.Err(); err != nil {
		tb.Fatal(err)
	}
	return ty
}

// FuzzParseSplit feeds Parse arbitrary split BTF on a fixed base: it must
// return an error or types that marshal back to the same bytes' meaning
// and that Dedup handles without panicking.
func FuzzParseSplit(f *testing.F) {
	_, data := smallBTF(f)
	base, err := Parse(data, nil)
	if err != nil {
		f.Fatal(err)
	}
	split := splitSmall(f, base)
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw, err := split.Marshal(order)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ty, err := Parse(data, base)
		if err != nil {
			return
		}
		out, err := ty.Marshal(binary.LittleEndian)
		if err != nil {
			t.Fatalf("parsed split types do not marshal: %v", err)
		}
		back, err := Parse(out, base)
		if err != nil {
			t.Fatalf("marshalled split types do not parse: %v", err)
		}
		if out2, _ := back.Marshal(binary.LittleEndian); !bytes.Equal(out, out2) {
			t.Fatalf("marshal is not stable")
		}
		if d, err := Dedup(ty); err == nil {
			if _, err := d.Marshal(binary.LittleEndian); err != nil {
				t.Fatalf("deduplicated split types do not marshal: %v", err)
			}
		}
	})
}
