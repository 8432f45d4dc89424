package refbtf

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
)

// build returns BTF of an int, VARs a, b, c and a DATASEC .data holding
// entries, in order.
func build(t *testing.T, order binary.ByteOrder, entries func(a, b, c btf.TypeID) []btf.VarSecinfo) []byte {
	t.Helper()
	strs := btf.NewStrings()
	types := btf.NewTypes(strs)
	i := types.AddInt(strs.Add("int"), 4, btf.IntSigned, 0, 32)
	a := types.AddVar(strs.Add("a"), i, btf.VarGlobalAllocated)
	b := types.AddVar(strs.Add("b"), i, btf.VarGlobalAllocated)
	c := types.AddVar(strs.Add("c"), i, btf.VarGlobalAllocated)
	types.AddDatasec(strs.Add(".data"), 12, entries(a, b, c))
	raw, err := types.Marshal(order)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestWithoutOverlaps(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw := build(t, order, func(a, b, c btf.TypeID) []btf.VarSecinfo {
			return []btf.VarSecinfo{{Type: a, Offset: 0, Size: 4}, {Type: a, Offset: 0, Size: 4},
				{Type: b, Offset: 2, Size: 4}, {Type: c, Offset: 4, Size: 4}}
		})
		if _, err := btf.Parse(raw, nil); err != nil {
			t.Fatal(err)
		}
		fixed, dropped, err := WithoutOverlaps(raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(dropped) != 2 || dropped[0] != (Entry{".data", "a", 2, 0, 4}) || dropped[1] != (Entry{".data", "b", 3, 2, 4}) {
			t.Errorf("%v: dropped %+v, want the second a and b", order, dropped)
		}
		types, err := btf.Parse(fixed, nil)
		if err != nil {
			t.Fatalf("%v: the fixed BTF does not parse: %v", order, err)
		}
		if err := types.Validate(); err != nil {
			t.Errorf("%v: the fixed BTF: %v", order, err)
		}
		ds := types.Type(5)
		if ds.Kind() != btf.KindDatasec || ds.Vlen() != 2 || ds.Secinfo(0).Type != 2 || ds.Secinfo(1).Type != 4 || ds.Size() != 12 {
			t.Errorf("%v: DATASEC %v vlen %d size %d, want a and c in 12 bytes", order, ds.Kind(), ds.Vlen(), ds.Size())
		}
		if types.Len() != 5 || types.Name(3) != "b" {
			t.Errorf("%v: %d types, [3] %q: every VAR must stay", order, types.Len(), types.Name(3))
		}
	}
}

func TestWithoutOverlapsKeepsValidBTF(t *testing.T) {
	raw := build(t, binary.LittleEndian, func(a, b, c btf.TypeID) []btf.VarSecinfo {
		return []btf.VarSecinfo{{Type: a, Offset: 0, Size: 4}, {Type: b, Offset: 4, Size: 4}, {Type: c, Offset: 8, Size: 4}}
	})
	fixed, dropped, err := WithoutOverlaps(raw)
	if err != nil || len(dropped) != 0 || !bytes.Equal(fixed, raw) {
		t.Errorf("BTF without overlaps: %d dropped, same bytes %v, %v", len(dropped), bytes.Equal(fixed, raw), err)
	}
	for _, bad := range [][]byte{nil, raw[:20], append([]byte{0, 0}, raw[2:]...), raw[:len(raw)-3]} {
		if _, _, err := WithoutOverlaps(bad); err == nil || !strings.Contains(err.Error(), "BTF") && !strings.Contains(err.Error(), "type") {
			t.Errorf("%d bytes of broken BTF: %v", len(bad), err)
		}
	}
}
