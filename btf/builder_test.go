package btf

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestBuilderWords checks the raw words each builder writes against the
// encoding in the kernel's btf.h.
func TestBuilderWords(t *testing.T) {
	ty := NewTypes(NewStrings())
	s := ty.Strings.Add
	cases := []struct {
		id   TypeID
		want []uint32
	}{
		{ty.AddInt(s("int"), 4, IntSigned, 0, 32), []uint32{1, 0x01000000, 4, 0x01000020}},
		{ty.AddRef(KindPtr, 0, 1), []uint32{0, 0x02000000, 1}},
		{ty.AddArray(1, 1, 16), []uint32{0, 0x03000000, 0, 1, 1, 16}},
		// A bitfield sets the kind flag; offsets are size<<24 | bit offset.
		{ty.AddStruct(false, s("s"), 8, []Member{{Name: s("a"), Type: 1}, {Name: s("b"), Type: 1, BitOffset: 35, BitfieldSize: 3}}),
			[]uint32{5, 0x84000002, 8, 7, 1, 0, 9, 1, 3<<24 | 35}},
		{ty.AddStruct(true, s("u"), 4, []Member{{Name: s("a"), Type: 1}}), []uint32{11, 0x05000001, 4, 7, 1, 0}},
		{ty.AddEnum(s("e"), 4, true, []EnumValue{{Name: s("A"), Value: -1}}), []uint32{13, 0x86000001, 4, 15, 0xffffffff}},
		{ty.AddFwd(s("u"), true), []uint32{11, 0x87000000, 0}},
		{ty.AddRef(KindTypedef, s("t"), 4), []uint32{17, 0x08000000, 4}},
		{ty.AddRef(KindVolatile, 0, 1), []uint32{0, 0x09000000, 1}},
		{ty.AddRef(KindConst, 0, 1), []uint32{0, 0x0a000000, 1}},
		{ty.AddRef(KindRestrict, 0, 2), []uint32{0, 0x0b000000, 2}},
		{ty.AddFunc(s("f"), 13, FuncGlobal), []uint32{19, 0x0c000001, 13}},
		{ty.AddFuncProto(1, []Param{{Name: s("x"), Type: 1}, {}}), []uint32{0, 0x0d000002, 1, 21, 1, 0, 0}},
		{ty.AddVar(s("v"), 1, VarGlobalAllocated), []uint32{23, 0x0e000000, 1, 1}},
		{ty.AddDatasec(s(".data"), 4, []VarSecinfo{{Type: 14, Offset: 0, Size: 4}}), []uint32{25, 0x0f000001, 4, 14, 0, 4}},
		{ty.AddFloat(s("double"), 8), []uint32{31, 0x10000000, 8}},
		{ty.AddDeclTag(s("tag"), 4, -1), []uint32{38, 0x11000000, 4, 0xffffffff}},
		{ty.AddTypeTag(s("tag"), 1, true), []uint32{38, 0x92000000, 1}},
		{ty.AddEnum64(s("e64"), 8, false, []EnumValue{{Name: s("B"), Value: 1 << 40}}), []uint32{42, 0x13000001, 8, 46, 0, 1 << 8}},
	}
	if err := ty.Err(); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if c.id != TypeID(i+1) {
			t.Errorf("case %d got id %d", i, c.id)
		}
		if got := ty.Type(c.id).Words(); !slices.Equal(got, c.want) {
			t.Errorf("type %d (%v): words %#x, want %#x", c.id, ty.Kind(c.id), got, c.want)
		}
	}
	// The views read back what was written.
	if m := ty.Type(4).Member(1); m != (Member{Name: 9, Type: 1, BitOffset: 35, BitfieldSize: 3}) {
		t.Errorf("Member(1) = %+v", m)
	}
	if v := ty.Type(6).EnumValue(0); v.Value != -1 {
		t.Errorf("signed enum value read back as %d", v.Value)
	}
	if v := ty.Type(19).EnumValue(0); v.Value != 1<<40 {
		t.Errorf("enum64 value read back as %d", v.Value)
	}
	if ty.Type(12).Linkage() != FuncGlobal || ty.Type(14).Linkage() != VarGlobalAllocated || ty.Type(17).ComponentIdx() != -1 {
		t.Errorf("linkage or component index read back wrong")
	}
	if ty.Name(4) != "s" || ty.Kind(0) != KindVoid || ty.Kind(100) != KindVoid {
		t.Errorf("Name(4)=%q Kind(0)=%v Kind(100)=%v", ty.Name(4), ty.Kind(0), ty.Kind(100))
	}
}

// TestBuilderErrorsStick checks that invalid arguments return id 0 and make
// every later consumer fail with the first error.
func TestBuilderErrorsStick(t *testing.T) {
	for name, add := range map[string]func(*Types) TypeID{
		"ref of struct kind":  func(ty *Types) TypeID { return ty.AddRef(KindStruct, 0, 1) },
		"union member offset": func(ty *Types) TypeID { return ty.AddStruct(true, 0, 4, []Member{{Type: 1, BitOffset: 8}}) },
		"huge bitfield":       func(ty *Types) TypeID { return ty.AddStruct(false, 0, 4, []Member{{Type: 1, BitfieldSize: 300}}) },
		"func linkage":        func(ty *Types) TypeID { return ty.AddFunc(0, 1, 7) },
		"var linkage":         func(ty *Types) TypeID { return ty.AddVar(0, 1, 9) },
		"int encoding":        func(ty *Types) TypeID { return ty.AddInt(0, 4, 8, 0, 32) },
		"decl tag component":  func(ty *Types) TypeID { return ty.AddDeclTag(0, 1, -2) },
	} {
		t.Run(name, func(t *testing.T) {
			ty := NewTypes(NewStrings())
			ty.AddInt(ty.Strings.Add("int"), 4, IntSigned, 0, 32)
			if id := add(ty); id != 0 {
				t.Errorf("got id %d, want 0", id)
			}
			ty.AddRef(KindPtr, 0, 1) // later builders still work...
			err := ty.Err()
			if err == nil || !strings.Contains(err.Error(), "adding type 2") {
				t.Fatalf("Err() = %v, want the first error, naming type 2", err)
			}
			if _, err := Dedup(ty); err == nil { // ...but nothing consumes the types
				t.Errorf("Dedup accepted types with a builder error")
			}
			if _, err := ty.Marshal(nil); err == nil {
				t.Errorf("Marshal accepted types with a builder error")
			}
		})
	}
}

// TestConsumersCheckReferences checks that ids a builder could not check
// (forward references) are checked by Marshal and Dedup.
func TestConsumersCheckReferences(t *testing.T) {
	ty := NewTypes(NewStrings())
	ty.AddRef(KindPtr, 0, 5) // no type 5
	if _, err := Dedup(ty); err == nil || !strings.Contains(err.Error(), "refers to type 5") {
		t.Errorf("Dedup: %v", err)
	}
	if _, err := ty.Marshal(nil); err == nil || !strings.Contains(err.Error(), "refers to type 5") {
		t.Errorf("Marshal: %v", err)
	}
	ty2 := NewTypes(NewStrings())
	ty2.AddFwd(1000, false) // no such string
	if _, err := Dedup(ty2); err == nil || !strings.Contains(err.Error(), "string offset 1000") {
		t.Errorf("Dedup: %v", err)
	}
}

// TestBuilderVlenLimit checks that the builders stop at the kernel's
// BTF_MAX_VLEN (0xffff): vlen is the 16 low bits of the info word, and a
// longer list used to spill into bits 16-23, which the kernel rejects.
func TestBuilderVlenLimit(t *testing.T) {
	for name, add := range map[string]func(ty *Types, n int) TypeID{
		"STRUCT with %d members": func(ty *Types, n int) TypeID {
			return ty.AddStruct(false, 0, 4, make([]Member, n))
		},
		"UNION with %d members": func(ty *Types, n int) TypeID {
			return ty.AddStruct(true, 0, 4, make([]Member, n))
		},
		"ENUM with %d values": func(ty *Types, n int) TypeID {
			return ty.AddEnum(0, 4, false, make([]EnumValue, n))
		},
		"ENUM64 with %d values": func(ty *Types, n int) TypeID {
			return ty.AddEnum64(0, 8, false, make([]EnumValue, n))
		},
		"FUNC_PROTO with %d parameters": func(ty *Types, n int) TypeID {
			return ty.AddFuncProto(1, make([]Param, n))
		},
		`DATASEC ".data" with %d entries`: func(ty *Types, n int) TypeID {
			return ty.AddDatasec(ty.Strings.Add(".data"), 4, make([]VarSecinfo, n))
		},
	} {
		t.Run(strings.Fields(name)[0], func(t *testing.T) {
			ty := NewTypes(NewStrings())
			ty.AddInt(ty.Strings.Add("int"), 4, IntSigned, 0, 32)
			id := add(ty, 0xffff)
			if err := ty.Err(); id != 2 || err != nil {
				t.Fatalf("0xffff entries: id %d, %v", id, err)
			}
			raw, err := ty.Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v := back.Vlen(2); v != 0xffff {
				t.Errorf("vlen %d after a round trip, want 65535", v)
			}

			if id := add(ty, 0x10000); id != 0 {
				t.Errorf("0x10000 entries: got id %d, want 0", id)
			}
			want := fmt.Sprintf("adding type 3: "+name+", more than the 65535 BTF allows", 0x10000)
			if err := ty.Err(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Err() = %v, want it to mention %q", err, want)
			}
		})
	}
}
