package elffile

import (
	"bytes"
	"strings"
	"testing"
)

// testReloc is one relocation for relocFile.
type testReloc struct {
	off    uint64
	sym    uint64
	typ    uint32
	addend int64
}

// applyRelocs encodes relocs as an SHT_REL or SHT_RELA section of a File of
// the given machine, class and byte order, and applies them to target with
// the symbol values vals.
func applyRelocs(t *testing.T, machine uint16, class Class, big, rela bool, vals []uint64, target []byte, relocs ...testReloc) ([]byte, error) {
	t.Helper()
	f := &File{Path: "synthetic.o", Class: class, Machine: machine, Type: ET_REL, order: endian{big}}
	esz := f.relocEntrySize(rela)
	var data []byte
	for _, r := range relocs {
		e := make([]byte, esz)
		if class == Class64 {
			f.order.putUint(e, 8, r.off)
			f.order.putUint(e[8:], 8, r.sym<<32|uint64(r.typ))
			if rela {
				f.order.putUint(e[16:], 8, uint64(r.addend))
			}
		} else {
			f.order.putUint(e, 4, r.off)
			f.order.putUint(e[4:], 4, r.sym<<8|uint64(r.typ))
			if rela {
				f.order.putUint(e[8:], 4, uint64(r.addend))
			}
		}
		data = append(data, e...)
	}
	f.data, f.pages.image = data, data
	typ := uint32(SHT_REL)
	if rela {
		typ = SHT_RELA
	}
	rs := &Section{Index: 2, Name: ".rel.debug_x", Type: typ, Size: uint64(len(data)), Entsize: esz}
	tgt := &Section{Index: 1, Name: ".debug_x"}
	dst := bytes.Clone(target)
	return dst, f.relocate(dst, tgt, rs, vals)
}

func TestRelocationArithmetic(t *testing.T) {
	vals := []uint64{0, 0x1000, 0x20, 0xfffffff0}
	cases := []struct {
		name    string
		machine uint16
		class   Class
		big     bool
		rela    bool
		target  []byte
		relocs  []testReloc
		want    []byte
	}{
		{"x86-64 64", EM_X86_64, Class64, false, true, make([]byte, 8),
			[]testReloc{{0, 1, 1, 0x34}}, []byte{0x34, 0x10, 0, 0, 0, 0, 0, 0}},
		{"x86-64 32 ignores the word in place", EM_X86_64, Class64, false, true, []byte{9, 9, 9, 9},
			[]testReloc{{0, 2, 10, -1}}, []byte{0x1f, 0, 0, 0}},
		{"x86-64 PC32", EM_X86_64, Class64, false, true, make([]byte, 8),
			[]testReloc{{4, 1, 2, 0}}, []byte{0, 0, 0, 0, 0xfc, 0x0f, 0, 0}},
		{"x86-64 NONE", EM_X86_64, Class64, false, true, []byte{7},
			[]testReloc{{100, 99, 0, 0}}, []byte{7}},
		{"aarch64_be ABS32", EM_AARCH64, Class64, true, true, make([]byte, 4),
			[]testReloc{{0, 3, 258, 0x20}}, []byte{0x00, 0x00, 0x00, 0x10}},
		{"aarch64 PREL32", EM_AARCH64, Class64, false, true, make([]byte, 8),
			[]testReloc{{4, 2, 261, 0}}, []byte{0, 0, 0, 0, 0x1c, 0, 0, 0}},
		{"i386 REL adds the word in place", EM_386, Class32, false, false, []byte{0x05, 0, 0, 0},
			[]testReloc{{0, 1, 1, 0}}, []byte{0x05, 0x10, 0, 0}},
		{"armeb REL ABS32", EM_ARM, Class32, true, false, []byte{0, 0, 0, 0x08},
			[]testReloc{{0, 2, 2, 0}}, []byte{0, 0, 0, 0x28}},
		{"mips TLS DTPREL32 removes the bias", EM_MIPS, Class32, true, false, []byte{0, 0, 0x80, 0x04},
			[]testReloc{{0, 0, 39, 0}}, []byte{0, 0, 0, 0x04}},
		{"ppc64 DTPREL64", EM_PPC64, Class64, true, true, make([]byte, 8),
			[]testReloc{{0, 2, 78, 0x8000}}, []byte{0, 0, 0, 0, 0, 0, 0, 0x20}},
		{"riscv ADD32/SUB32 pair", EM_RISCV, Class64, false, true, make([]byte, 4),
			[]testReloc{{0, 1, 35, 0x8}, {0, 2, 39, 0}}, []byte{0xe8, 0x0f, 0, 0}},
		{"riscv ADD8/SUB8 wrap", EM_RISCV, Class32, false, true, []byte{0x01},
			[]testReloc{{0, 2, 33, 0}, {0, 1, 37, 0}}, []byte{0x21}},
		{"riscv SET6 keeps the top bits", EM_RISCV, Class64, false, true, []byte{0xc0},
			[]testReloc{{0, 2, 53, 0x5}}, []byte{0xe5}},
		{"riscv SUB6 keeps the top bits", EM_RISCV, Class64, false, true, []byte{0x43},
			[]testReloc{{0, 0, 52, 0x4}}, []byte{0x7f}},
		{"riscv SET_ULEB128/SUB_ULEB128 keep the length", EM_RISCV, Class64, false, true, []byte{0x80, 0x80, 0x00, 0xaa},
			[]testReloc{{0, 1, 60, 0x10}, {0, 2, 61, 0}}, []byte{0xf0, 0x9f, 0x00, 0xaa}},
		{"riscv RELAX is a no-op", EM_RISCV, Class64, false, true, []byte{1},
			[]testReloc{{0, 1, 51, 0}}, []byte{1}},
		{"s390x 64", EM_S390, Class64, true, true, make([]byte, 8),
			[]testReloc{{0, 3, 22, 0x10}}, []byte{0, 0, 0, 1, 0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := applyRelocs(t, c.machine, c.class, c.big, c.rela, vals, c.target, c.relocs...)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.want) {
				t.Errorf("got % x, want % x", got, c.want)
			}
		})
	}
}

func TestRelocationErrors(t *testing.T) {
	vals := []uint64{0, 0x1000}
	cases := []struct {
		name    string
		machine uint16
		class   Class
		rela    bool
		target  []byte
		r       testReloc
		msg     string
	}{
		{"unknown type", EM_X86_64, Class64, true, make([]byte, 8), testReloc{4, 1, 9, 0}, "unsupported x86-64 relocation type 9"},
		{"word past the end", EM_X86_64, Class64, true, make([]byte, 8), testReloc{5, 1, 10, 0}, "4-byte relocation"},
		{"symbol out of range", EM_AARCH64, Class64, true, make([]byte, 8), testReloc{0, 2, 257, 0}, "symbol index 2 out of range"},
		{"ULEB128 unterminated", EM_RISCV, Class64, true, []byte{0x80, 0x80}, testReloc{0, 1, 60, 0}, "no complete ULEB128"},
		{"ULEB128 in REL", EM_RISCV, Class32, false, []byte{0}, testReloc{0, 1, 60, 0}, "REL section"},
		{"64-bit MIPS", EM_MIPS, Class64, true, make([]byte, 8), testReloc{0, 1, 2, 0}, "64-bit MIPS"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := applyRelocs(t, c.machine, c.class, false, c.rela, vals, c.target, c.r)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want %q", err, c.msg)
			}
			fe := formatError(t, err)
			if fe.Section != ".debug_x" || fe.File != "synthetic.o" {
				t.Errorf("error names %q in %q", fe.Section, fe.File)
			}
			if c.name != "64-bit MIPS" && fe.Offset != c.r.off {
				t.Errorf("error offset 0x%x, want the r_offset 0x%x", fe.Offset, c.r.off)
			}
		})
	}
}
