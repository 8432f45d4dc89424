package brokentest

import (
	"encoding/binary"
	"testing"

	"github.com/btfgate/btfgate/loader/elffile"
)

// image is an ELF file held in memory with what the mutators need to know
// about its layout: byte order, class and the section header table.
type image struct {
	data      []byte
	order     binary.ByteOrder
	is64      bool
	shoff     uint64
	shentsize uint64
	secs      []elffile.Section
}

// ELF header field offsets (64-bit; 32-bit in ehdr32).
var (
	ehdr64 = map[string]struct{ off, width int }{
		"e_type": {16, 2}, "e_machine": {18, 2}, "e_version": {20, 4}, "e_shoff": {40, 8},
		"e_ehsize": {52, 2}, "e_shentsize": {58, 2}, "e_shnum": {60, 2}, "e_shstrndx": {62, 2},
	}
	ehdr32 = map[string]struct{ off, width int }{
		"e_type": {16, 2}, "e_machine": {18, 2}, "e_version": {20, 4}, "e_shoff": {32, 4},
		"e_ehsize": {40, 2}, "e_shentsize": {46, 2}, "e_shnum": {48, 2}, "e_shstrndx": {50, 2},
	}
	shdr64 = map[string]struct{ off, width int }{
		"sh_name": {0, 4}, "sh_type": {4, 4}, "sh_flags": {8, 8}, "sh_addr": {16, 8}, "sh_offset": {24, 8},
		"sh_size": {32, 8}, "sh_link": {40, 4}, "sh_info": {44, 4}, "sh_addralign": {48, 8}, "sh_entsize": {56, 8},
	}
	shdr32 = map[string]struct{ off, width int }{
		"sh_name": {0, 4}, "sh_type": {4, 4}, "sh_flags": {8, 4}, "sh_addr": {12, 4}, "sh_offset": {16, 4},
		"sh_size": {20, 4}, "sh_link": {24, 4}, "sh_info": {28, 4}, "sh_addralign": {32, 4}, "sh_entsize": {36, 4},
	}
)

// shdrFields lists the section header fields in a fixed order.
var shdrFields = []string{"sh_name", "sh_type", "sh_flags", "sh_addr", "sh_offset", "sh_size", "sh_link", "sh_info", "sh_addralign", "sh_entsize"}

func parseImage(tb testing.TB, name string, data []byte) *image {
	tb.Helper()
	f, err := elffile.NewFile(name, data)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	im := &image{data: data, order: f.ByteOrder, is64: f.Class == elffile.Class64, secs: f.Sections}
	im.shoff = im.get(im.ehdrField("e_shoff"))
	im.shentsize = im.get(im.ehdrField("e_shentsize"))
	return im
}

// field is the position and width of an integer field in the image.
type field struct{ off, width int }

func (im *image) ehdrField(name string) field {
	m := ehdr32
	if im.is64 {
		m = ehdr64
	}
	f, ok := m[name]
	if !ok {
		panic("unknown ELF header field " + name)
	}
	return field{f.off, f.width}
}

func (im *image) shdrField(idx int, name string) field {
	m := shdr32
	if im.is64 {
		m = shdr64
	}
	f, ok := m[name]
	if !ok {
		panic("unknown section header field " + name)
	}
	return field{int(im.shoff) + idx*int(im.shentsize) + f.off, f.width}
}

func (im *image) get(f field) uint64 { return getUint(im.order, im.data[f.off:], f.width) }

func getUint(order binary.ByteOrder, b []byte, width int) uint64 {
	switch width {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(order.Uint16(b))
	case 4:
		return uint64(order.Uint32(b))
	}
	return order.Uint64(b)
}

func putUint(order binary.ByteOrder, b []byte, width int, v uint64) {
	switch width {
	case 1:
		b[0] = byte(v)
	case 2:
		order.PutUint16(b, uint16(v))
	case 4:
		order.PutUint32(b, uint32(v))
	default:
		order.PutUint64(b, v)
	}
}

// clone returns a copy of the image bytes to mutate.
func (im *image) clone() []byte { return append([]byte(nil), im.data...) }

// with returns a copy of the image with field f set to v.
func (im *image) with(f field, v uint64) []byte {
	b := im.clone()
	putUint(im.order, b[f.off:], f.width, v)
	return b
}

// section returns the index of the first section named name, or -1.
func (im *image) section(name string) int {
	for i := range im.secs {
		if im.secs[i].Name == name {
			return i
		}
	}
	return -1
}

// sectionBytes returns the file bytes of section idx.
func (im *image) sectionBytes(idx int) []byte {
	s := &im.secs[idx]
	return im.data[s.Offset : s.Offset+s.Size]
}

// renamed returns a copy of the image in which section name is called
// newName (same length), so that readers no longer find it.
func (im *image) renamed(tb testing.TB, name, newName string) []byte {
	tb.Helper()
	if len(name) != len(newName) {
		tb.Fatalf("rename %s to %s: lengths differ", name, newName)
	}
	idx := im.section(name)
	if idx < 0 {
		tb.Fatalf("no section %s", name)
	}
	strndx := im.get(im.ehdrField("e_shstrndx"))
	st := &im.secs[strndx]
	off := st.Offset + im.get(im.shdrField(idx, "sh_name"))
	b := im.clone()
	if string(b[off:off+uint64(len(name))]) != name {
		tb.Fatalf("section name of %s not found in the name table", name)
	}
	copy(b[off:], newName)
	return b
}
