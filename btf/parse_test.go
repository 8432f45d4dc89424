package btf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// smallTypes builds one type of every kind.
func smallTypes() *Types {
	ty := NewTypes(NewStrings())
	s := ty.Strings.Add
	ty.AddInt(s("int"), 4, IntSigned, 0, 32)                                                                      // 1
	ty.AddRef(KindPtr, 0, 3)                                                                                      // 2
	ty.AddStruct(false, s("s"), 16, []Member{{Name: s("a"), Type: 1}, {Name: s("next"), Type: 2, BitOffset: 64}}) // 3
	ty.AddFuncProto(1, []Param{{Name: s("x"), Type: 2}})                                                          // 4
	ty.AddFunc(s("f"), 4, FuncStatic)                                                                             // 5
	ty.AddFwd(s("u"), true)                                                                                       // 6
	ty.AddEnum(s("e"), 4, false, []EnumValue{{Name: s("E0"), Value: 0}})                                          // 7
	ty.AddArray(1, 1, 3)                                                                                          // 8
	ty.AddRef(KindTypedef, s("t"), 8)                                                                             // 9
	ty.AddRef(KindConst, 0, 9)                                                                                    // 10
	ty.AddRef(KindVolatile, 0, 10)                                                                                // 11
	ty.AddRef(KindRestrict, 0, 2)                                                                                 // 12
	ty.AddVar(s("v"), 1, VarStatic)                                                                               // 13
	ty.AddDatasec(s(".bss"), 4, []VarSecinfo{{Type: 13, Size: 4}})                                                // 14
	ty.AddFloat(s("double"), 8)                                                                                   // 15
	ty.AddDeclTag(s("tag"), 5, -1)                                                                                // 16
	ty.AddTypeTag(s("tag"), 1, false)                                                                             // 17
	ty.AddEnum64(s("e64"), 8, true, []EnumValue{{Name: s("E1"), Value: -5}})                                      // 18
	ty.AddStruct(true, s("un"), 4, []Member{{Name: s("a"), Type: 1}})                                             // 19
	return ty
}

func smallBTF(tb testing.TB) (*Types, []byte) {
	tb.Helper()
	ty := smallTypes()
	data, err := ty.Marshal(binary.LittleEndian)
	if err != nil {
		tb.Fatal(err)
	}
	return ty, data
}

func TestParseSmallRoundTrip(t *testing.T) {
	ty, data := smallBTF(t)
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw, err := ty.Marshal(order)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(raw, nil)
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		if got := formatTypes(back); got != formatTypes(ty) {
			t.Errorf("%v: parsed\n%s\nwant\n%s", order, got, formatTypes(ty))
		}
		le, _ := back.Marshal(binary.LittleEndian)
		if !bytes.Equal(le, data) {
			t.Errorf("%v: re-marshalled bytes differ", order)
		}
	}
}

// TestParseSplitReference parses ext4's split BTF on the kernel's and
// writes it back byte for byte.
func TestParseSplitReference(t *testing.T) {
	base := parseReference(t, "amd64.default.btf", nil)
	data := readReference(t, "modules/ext4.default.btf")
	mod, err := Parse(data, base)
	if err != nil {
		t.Fatal(err)
	}
	if mod.FirstID() != 100051 || mod.Len() != 2944 {
		t.Errorf("FirstID %d, Len %d; want 100051, 2944 (bpftool)", mod.FirstID(), mod.Len())
	}
	if mod.Name(mod.FirstID()) == "" && mod.Kind(mod.FirstID()) == KindVoid {
		t.Errorf("first module type unreadable")
	}
	out, err := mod.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Fatalf("marshalled %d bytes differ from the %d parsed", len(out), len(data))
	}
	if _, err := Parse(data, nil); err == nil {
		t.Errorf("split BTF parsed without its base")
	}
}

// TestParseDebianHeader parses the 24-byte-header BTF Debian's pahole wrote
// and checks Marshal writes the same sections under a 32-byte header.
func TestParseDebianHeader(t *testing.T) {
	data := debianBTF(t)
	ty, err := Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(data[4:]) != 24 || ty.Len() != 100810 {
		t.Errorf("hdr_len %d, %d types", binary.LittleEndian.Uint32(data[4:]), ty.Len())
	}
	out, err := ty.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out[32:], data[24:]) || binary.LittleEndian.Uint32(out[4:]) != 32 {
		t.Errorf("sections differ after re-marshalling")
	}
}

func TestParseErrors(t *testing.T) {
	ty, good := smallBTF(t)
	le := binary.LittleEndian
	typeWord := func(id TypeID, w int) int { return hdrLen + 4*(int(ty.offs[id-1])+w) }
	strStart := hdrLen + int(le.Uint32(good[16:]))
	// lenient: ParseLenient accepts the input (else it fails as Parse does).
	cases := []struct {
		name    string
		mutate  func(b []byte) []byte
		want    string
		lenient bool
	}{
		{"short", func(b []byte) []byte { return b[:20] }, "too short", false},
		{"magic", func(b []byte) []byte { b[0] = 0; return b }, "bad magic", false},
		{"version", func(b []byte) []byte { b[2] = 2; return b }, "unsupported version", false},
		{"flags", func(b []byte) []byte { b[3] = 1; return b }, "offset 0x3: unsupported header flags 0x1", false},
		{"header length", func(b []byte) []byte { le.PutUint32(b[4:], 1<<20); return b }, "header length", false},
		{"header extra", func(b []byte) []byte {
			b = append(b[:32:32], append([]byte{0, 7, 0, 0}, b[32:]...)...)
			le.PutUint32(b[4:], 36)
			return b
		}, "unknown non-zero header data", false},
		{"strings past end", func(b []byte) []byte { le.PutUint32(b[20:], le.Uint32(b[20:])+1); return b }, "past the end", false},
		{"overlap", func(b []byte) []byte { le.PutUint32(b[12:], le.Uint32(b[12:])+4); return b }, "overlaps", false},
		{"alignment", func(b []byte) []byte { le.PutUint32(b[8:], 2); le.PutUint32(b[12:], le.Uint32(b[12:])-4); return b }, "aligned", false},
		{"unknown kind", func(b []byte) []byte { le.PutUint32(b[typeWord(2, 1):], 25<<24); return b }, "unknown kind 25", false},
		{"vlen", func(b []byte) []byte { le.PutUint32(b[typeWord(3, 1):], 4<<24|0xffff); return b }, "STRUCT with vlen 65535 needs", false},
		// The kernel rejects bits 16-23 (vlen is 16 bits) and 29-30 (kind is 5) set.
		{"vlen bit 16", func(b []byte) []byte { le.PutUint32(b[typeWord(3, 1):], 4<<24|1<<16|2); return b },
			"type 3: STRUCT: info word 0x04010002 has reserved bits 0x10000 set", true},
		{"reserved bits no vlen", func(b []byte) []byte { le.PutUint32(b[typeWord(1, 1):], 1<<24|0x800000); return b },
			"type 1: INT: info word 0x01800000 has reserved bits 0x800000 set", true},
		{"kind bit 29", func(b []byte) []byte { le.PutUint32(b[typeWord(2, 1):], 2<<24|1<<29); return b },
			"type 2: PTR: info word 0x22000000 has reserved bits 0x20000000 set", true},
		{"kind bit 30", func(b []byte) []byte { le.PutUint32(b[typeWord(2, 1):], 2<<24|1<<30); return b },
			"type 2: PTR: info word 0x42000000 has reserved bits 0x40000000 set", true},
		{"name offset", func(b []byte) []byte { le.PutUint32(b[typeWord(1, 0):], 1<<20); return b }, "string offset 1048576", false},
		{"member name offset", func(b []byte) []byte { le.PutUint32(b[typeWord(3, 6):], 1<<20); return b }, "STRUCT: string offset", false},
		{"type id", func(b []byte) []byte { le.PutUint32(b[typeWord(2, 2):], 99); return b }, "refers to type 99", false},
		{"param type id", func(b []byte) []byte { le.PutUint32(b[typeWord(4, 4):], 99); return b }, "FUNC_PROTO: refers to type 99", false},
		{"func proto", func(b []byte) []byte { le.PutUint32(b[typeWord(5, 2):], 1); return b }, "not a FUNC_PROTO", true},
		{"fwd type", func(b []byte) []byte { le.PutUint32(b[typeWord(6, 2):], 1); return b }, "FWD has non-zero type word", true},
		{"string NUL", func(b []byte) []byte { b[len(b)-1] = 'x'; return b }, "does not end with NUL", false},
		{"string start", func(b []byte) []byte { b[strStart] = 'x'; return b }, "does not start with NUL", false},
		{"trailing words", func(b []byte) []byte {
			tl := le.Uint32(b[12:])
			b = append(b[:hdrLen+tl:hdrLen+tl], append([]byte{0, 0, 0, 0, 0, 0, 0, 0}, b[hdrLen+tl:]...)...)
			le.PutUint32(b[12:], tl+8)
			le.PutUint32(b[16:], tl+8)
			return b
		}, "trailing bytes", false},
		{"layout", func(b []byte) []byte { le.PutUint32(b[24:], 4); le.PutUint32(b[28:], 8); return b }, "layout section", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.mutate(bytes.Clone(good)), nil)
			var perr *ParseError
			if !errors.As(err, &perr) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %q, want it to mention %q", err, c.want)
			}
			lt, lerr := ParseLenient(c.mutate(bytes.Clone(good)), nil)
			switch {
			case c.lenient && lerr != nil:
				t.Errorf("ParseLenient: %v, want the types", lerr)
			case c.lenient:
				if got, want := formatLenient(lt), formatLenient(ty); got != want {
					t.Errorf("ParseLenient read kinds and names\n%s\nwant\n%s", got, want)
				}
			case lerr == nil || lerr.Error() != err.Error():
				t.Errorf("ParseLenient: %v, want Parse's error %v", lerr, err)
			}
		})
	}
}

// FuzzParse feeds Parse arbitrary bytes: it must return an error or types
// that marshal back to bytes parsing to the same types, and that Dedup
// handles without panicking.
func FuzzParse(f *testing.F) {
	_, data := smallBTF(f)
	f.Add(data)
	be, _ := smallTypes().Marshal(binary.BigEndian)
	f.Add(be)
	f.Add(data[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		ty, err := Parse(data, nil)
		if err != nil {
			return
		}
		out, err := ty.Marshal(binary.LittleEndian)
		if err != nil {
			t.Fatalf("parsed types do not marshal: %v", err)
		}
		back, err := Parse(out, nil)
		if err != nil {
			t.Fatalf("marshalled types do not parse: %v", err)
		}
		if out2, _ := back.Marshal(binary.LittleEndian); !bytes.Equal(out, out2) {
			t.Fatalf("marshal is not stable")
		}
		if d, err := Dedup(ty); err == nil {
			if _, err := d.Marshal(binary.LittleEndian); err != nil {
				t.Fatalf("deduplicated types do not marshal: %v", err)
			}
		}
	})
}

// formatLenient lists each type's kind and name, which the rules that only
// ParseLenient relaxes leave readable.
func formatLenient(t *Types) string {
	var b strings.Builder
	for id := t.FirstID(); id < t.NextID(); id++ {
		fmt.Fprintf(&b, "%d %v %q\n", id, t.Kind(id), t.Name(id))
	}
	return b.String()
}

// TestParseLenientKeepsInfo: the reserved bits ParseLenient lets through
// stay in Type.Info, next to the kind, vlen and kind flag they surround.
func TestParseLenientKeepsInfo(t *testing.T) {
	ty, good := smallBTF(t)
	at := hdrLen + 4*(int(ty.offs[2])+1) // type 3, STRUCT s: its info word
	data := bytes.Clone(good)
	binary.LittleEndian.PutUint32(data[at:], 0xe4050002)
	lt, err := ParseLenient(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := lt.Type(3)
	if v.Info() != 0xe4050002 || v.Kind() != KindStruct || v.Vlen() != 2 || !v.KindFlag() {
		t.Errorf("info %#x: kind %v, vlen %d, kind flag %v; want 0xe4050002, STRUCT, 2, true", v.Info(), v.Kind(), v.Vlen(), v.KindFlag())
	}
	if _, err := Parse(data, nil); err == nil {
		t.Error("Parse accepted reserved info bits")
	}
}
