package btf

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestMarshalLayout(t *testing.T) {
	types := NewTypes(NewStrings())
	i := types.AddInt(types.Strings.Add("int"), 4, IntSigned, 0, 32)
	types.AddStruct(false, types.Strings.Add("s"), 4, []Member{{Name: types.Strings.Add("x"), Type: i}})
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		plain, err := types.Marshal(order)
		if err != nil {
			t.Fatal(err)
		}
		withLayout, err := types.MarshalLayout(order)
		if err != nil {
			t.Fatal(err)
		}
		if len(withLayout) != len(plain)+80 {
			t.Fatalf("layout adds %d bytes, want pahole's 80", len(withLayout)-len(plain))
		}
		typeLen := order.Uint32(plain[12:])
		if got := order.Uint32(withLayout[24:]); got != typeLen {
			t.Errorf("layout_off %d, want type_len %d", got, typeLen)
		}
		if got := order.Uint32(withLayout[28:]); got != 80 {
			t.Errorf("layout_len %d", got)
		}
		if got := order.Uint32(withLayout[16:]); got != typeLen+80 {
			t.Errorf("str_off %d, want %d", got, typeLen+80)
		}
		lay := withLayout[32+typeLen : 32+typeLen+80]
		// INT: one 4-byte element; STRUCT: 12-byte members; PTR: nothing.
		if !bytes.Equal(lay[4*KindInt:4*KindInt+4], []byte{4, 0, 0, 0}) ||
			!bytes.Equal(lay[4*KindStruct:4*KindStruct+4], []byte{0, 12, 0, 0}) ||
			!bytes.Equal(lay[4*KindPtr:4*KindPtr+4], []byte{0, 0, 0, 0}) {
			t.Errorf("layout entries % x", lay)
		}
		if !bytes.Equal(withLayout[32+typeLen+80:], plain[32+typeLen:]) {
			t.Error("strings moved or changed")
		}
		back, err := Parse(withLayout, nil)
		if err != nil {
			t.Fatalf("parse BTF with a layout section: %v", err)
		}
		if back.Len() != 2 || back.Name(2) != "s" {
			t.Errorf("parsed back %d types, name %q", back.Len(), back.Name(2))
		}
	}
}
