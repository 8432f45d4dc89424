package btfdiff

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
)

func validBlob() []byte {
	b, _ := everyKind()
	return b.bytes(binary.LittleEndian, 32)
}

func TestDecodeRejectsMalformed(t *testing.T) {
	le := binary.LittleEndian
	patch := func(f func(d []byte)) []byte {
		d := validBlob()
		f(d)
		return d
	}
	typeLen := int(le.Uint32(validBlob()[12:]))
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"bad magic", patch(func(d []byte) { d[0] = 0 }), "bad magic"},
		{"version 2", patch(func(d []byte) { d[2] = 2 }), "version 2"},
		{"flags", patch(func(d []byte) { d[3] = 1 }), "flags"},
		{"hdr_len below 24", patch(func(d []byte) { le.PutUint32(d[4:], 20) }), "header length 20 outside"},
		{"hdr_len past end", patch(func(d []byte) { le.PutUint32(d[4:], 1<<30) }), "header length 1073741824 outside"},
		{"unknown header field", patch(func(d []byte) { le.PutUint32(d[4:], 36) }), "unknown non-zero header data"},
		{"types past end", patch(func(d []byte) { le.PutUint32(d[12:], 1<<20) }), "type section"},
		{"strings past end", patch(func(d []byte) { le.PutUint32(d[20:], 1<<20) }), "string section"},
		{"offset overflow", patch(func(d []byte) { le.PutUint32(d[16:], 0xffffffff) }), "string section"},
		{"layout past end", patch(func(d []byte) { le.PutUint32(d[28:], 1<<20) }), "layout section"},
		{"misaligned types", patch(func(d []byte) { le.PutUint32(d[8:], 1) }), "type section [1, +"},
		{"strings not terminated", patch(func(d []byte) { d[len(d)-1] = 'x' }), "NUL"},
		{"strings not starting empty", patch(func(d []byte) { d[32+typeLen] = 'x' }), "does not start with NUL"},
		{"unknown kind", patch(func(d []byte) { le.PutUint32(d[32+4:], 25<<24) }), "unknown kind 25"},
		{"kind 0", patch(func(d []byte) { le.PutUint32(d[32+4:], 0) }), "unknown kind 0"},
		{"name offset", patch(func(d []byte) { le.PutUint32(d[32:], 1<<24) }), "type 1: INT: string offset 16777216"},
		// Types 1-4 are INTs of 16 bytes; type 5, a PTR, starts at 64.
		{"type id", patch(func(d []byte) { le.PutUint32(d[32+64+8:], 9999) }), "type 5: PTR: refers to type 9999"},
		{"vlen past end", patch(func(d []byte) { le.PutUint32(d[32+64+4:], uint32(btf.KindStruct)<<24|0xffff) }), "needs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := FromBytes(c.name, c.data, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestDecodeErrorSaysWhere(t *testing.T) {
	d := validBlob()
	// Type 3 (an INT) starts at 32 + 2*16 bytes; give it an unknown kind.
	binary.LittleEndian.PutUint32(d[32+32+4:], 31<<24)
	_, err := FromBytes("blob", d, nil)
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *DecodeError", err)
	}
	if de.Name != "blob" || de.Offset != 64 {
		t.Errorf("DecodeError at %s+%d, want blob+64: %v", de.Name, de.Offset, err)
	}
	if want := "blob: btf: offset 0x40: type 3: unknown kind 31"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// Every truncation of a valid blob is an error, and no corruption of a
// single byte panics.
func TestDecodeNeverPanics(t *testing.T) {
	d := validBlob()
	for n := 0; n < len(d); n++ {
		if _, err := FromBytes("cut", d[:n], nil); err == nil {
			t.Errorf("blob cut to %d of %d bytes decoded without error", n, len(d))
		}
	}
	for i := range d {
		for _, x := range []byte{0xff, 0x80, 0x01} {
			c := append([]byte(nil), d...)
			c[i] ^= x
			_, _ = FromBytes("flip", c, nil)
			_, _ = FromBytes("split", c, d)
		}
	}
}

func TestSplitNeedsItsBase(t *testing.T) {
	base := newTestBTF()
	intT := base.add(btf.KindInt, "int", false, 0, 4, 1<<24|32)
	split := &testBTF{} // split strings continue after the base's
	split.strs = make([]byte, 0)
	split.words = []uint32{0, uint32(btf.KindPtr) << 24, intT}
	split.n = 1
	s, err := FromBytes("split", split.bytes(binary.LittleEndian, 24), base.bytes(binary.BigEndian, 24))
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 || s.Multiplicity("PTR -> INT int") != 1 {
		t.Errorf("split set: %d types, PTR -> INT int ×%d; want 1 and 1", s.Len(), s.Multiplicity("PTR -> INT int"))
	}
	if _, err := FromBytes("split", split.bytes(binary.LittleEndian, 24), nil); err == nil {
		t.Error("split BTF decoded without its base")
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("/nonexistent/x.btf", ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if _, err := Load(exe, ""); err == nil || !strings.Contains(err.Error(), "no .BTF section") {
		t.Errorf("ELF without .BTF: err = %v", err)
	}
	if _, err := FromBytes("elf", []byte("\x7fELF\x02\x01\x01garbage"), nil); err == nil {
		t.Error("truncated ELF decoded without error")
	}
}

func FuzzFromBytes(f *testing.F) {
	b, _ := everyKind()
	f.Add(b.bytes(binary.LittleEndian, 24))
	f.Add(b.bytes(binary.BigEndian, 32))
	f.Add([]byte("\x7fELF\x02\x01\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := FromBytes("fuzz", data, nil)
		if err != nil {
			return
		}
		// Whatever decodes must compare equal to itself and report.
		r := Compare(s, s)
		if !r.Equal() {
			t.Fatalf("set differs from itself: %+v", r)
		}
		var sb strings.Builder
		if err := r.WriteText(&sb, 5); err != nil {
			t.Fatal(err)
		}
	})
}
