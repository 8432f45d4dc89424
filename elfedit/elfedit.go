// Package elfedit adds or replaces sections (.BTF, .BTF.base) in an ELF
// file image, in pure Go, the way "objcopy --add-section" or pahole's
// in-place update does; writing the result is the caller's
// (internal/outputs).
//
// The new data and a new section header table go at the end of the file;
// the old header table and replaced section data stay behind as unused
// bytes, so no offset of any other section or segment moves and every
// other byte of the file keeps its meaning.
//
// A replaced section keeps its flags and address. ld.lld keeps an empty
// output section for the kernel linker script's .BTF (it assigns
// __start_BTF/__stop_BTF), so the file kbuild hands to "pahole -J" has an
// allocated, empty .BTF. Such a section is replaced like any other: its
// new data lies outside the loaded segments, the program headers still
// describe the image the linker made, and the section's contents are what
// kbuild's "objcopy --only-section=.BTF" then takes out. A section of type
// SHT_NOBITS (no file data) becomes SHT_PROGBITS, so its data is readable.
package elfedit

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Section is a section to add or replace.
type Section struct {
	Name string
	Data []byte
}

const (
	shtProgbits  = 1
	shtNobits    = 8
	shnLoreserve = 0xff00
	shnXindex    = 0xffff
)

// image is a parsed ELF file being edited.
type image struct {
	path     string
	data     []byte
	order    binary.ByteOrder
	is64     bool
	shoff    uint64
	shentsz  uint64
	shnum    uint64
	shstrndx uint64
	headers  [][]byte // copies of the section headers
}

// Edit returns a copy of the ELF image data (named path in errors) with
// secs added or replaced.
func Edit(path string, data []byte, secs ...Section) ([]byte, error) {
	im, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	shstr, err := im.sectionData(im.shstrndx)
	if err != nil {
		return nil, err
	}
	names := append([]byte(nil), shstr...)
	out := bytes.NewBuffer(append([]byte(nil), data...))
	for _, s := range secs {
		idx := -1
		for i := range im.headers {
			if im.name(i, shstr) == s.Name {
				idx = i
				break
			}
		}
		if idx >= 0 && im.typ(idx) == shtNobits {
			im.put32(im.headers[idx], 4, shtProgbits)
		}
		off := align(uint64(out.Len()), 8)
		out.Write(make([]byte, off-uint64(out.Len())))
		out.Write(s.Data)
		if idx < 0 {
			nameOff := uint64(len(names))
			names = append(append(names, s.Name...), 0)
			h := make([]byte, im.shentsz)
			im.put32(h, 0, uint32(nameOff))
			im.put32(h, 4, shtProgbits)
			im.headers = append(im.headers, h)
			idx = len(im.headers) - 1
			im.setAlign(idx, 1)
		}
		im.setPlace(idx, off, uint64(len(s.Data)))
	}
	// The section name table, rewritten at the end with the new names.
	if len(names) != len(shstr) {
		off := uint64(out.Len())
		out.Write(names)
		im.setPlace(int(im.shstrndx), off, uint64(len(names)))
	}
	shoff := align(uint64(out.Len()), 8)
	out.Write(make([]byte, shoff-uint64(out.Len())))
	count := uint64(len(im.headers))
	for _, h := range im.headers {
		out.Write(h)
	}
	b := out.Bytes()
	im.setHeaderTable(b, shoff, count)
	return b, nil
}

func align(v, a uint64) uint64 { return (v + a - 1) &^ (a - 1) }

func parse(path string, data []byte) (*image, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	if len(data) < 52 || string(data[:4]) != "\x7fELF" {
		return nil, bad("not an ELF file")
	}
	im := &image{path: path, data: data}
	switch data[5] {
	case 1:
		im.order = binary.LittleEndian
	case 2:
		im.order = binary.BigEndian
	default:
		return nil, bad("bad EI_DATA %d", data[5])
	}
	switch data[4] {
	case 1:
		im.shoff = uint64(im.order.Uint32(data[32:]))
		im.shentsz = uint64(im.order.Uint16(data[46:]))
		im.shnum = uint64(im.order.Uint16(data[48:]))
		im.shstrndx = uint64(im.order.Uint16(data[50:]))
	case 2:
		if len(data) < 64 {
			return nil, bad("truncated ELF header")
		}
		im.is64 = true
		im.shoff = im.order.Uint64(data[40:])
		im.shentsz = uint64(im.order.Uint16(data[58:]))
		im.shnum = uint64(im.order.Uint16(data[60:]))
		im.shstrndx = uint64(im.order.Uint16(data[62:]))
	default:
		return nil, bad("bad EI_CLASS %d", data[4])
	}
	want := uint64(40)
	if im.is64 {
		want = 64
	}
	if im.shentsz != want || im.shoff == 0 || im.shoff > uint64(len(data)) || uint64(len(data))-im.shoff < want {
		return nil, bad("no usable section header table (e_shoff %#x, e_shentsize %d)", im.shoff, im.shentsz)
	}
	first := data[im.shoff : im.shoff+want]
	if im.shnum == 0 {
		im.shnum = im.field(first, fSize) // extended numbering: sh_size of section 0
	}
	if im.shstrndx == shnXindex {
		im.shstrndx = uint64(im.order.Uint32(first[im.linkOff():]))
	}
	if im.shnum > (uint64(len(data))-im.shoff)/want {
		return nil, bad("section header table of %d entries runs past the end of the file", im.shnum)
	}
	if im.shstrndx >= im.shnum {
		return nil, bad("e_shstrndx %d out of range", im.shstrndx)
	}
	for i := uint64(0); i < im.shnum; i++ {
		at := im.shoff + i*want
		im.headers = append(im.headers, append([]byte(nil), data[at:at+want]...))
	}
	return im, nil
}

// field reads a section header field (fOffset, fSize, fAlign) of h.
func (im *image) field(h []byte, which int) uint64 {
	off, size := im.fieldPos(which)
	if size == 4 {
		return uint64(im.order.Uint32(h[off:]))
	}
	return im.order.Uint64(h[off:])
}

func (im *image) setField(h []byte, which int, v uint64) {
	off, size := im.fieldPos(which)
	if size == 4 {
		im.order.PutUint32(h[off:], uint32(v))
		return
	}
	im.order.PutUint64(h[off:], v)
}

// Section header fields elfedit reads or writes.
const (
	fOffset = iota
	fSize
	fAlign
)

// fieldPos returns the offset and size of a section header field.
func (im *image) fieldPos(which int) (int, int) {
	if im.is64 {
		switch which {
		case fOffset:
			return 24, 8
		case fSize:
			return 32, 8
		default: // fAlign
			return 48, 8
		}
	}
	switch which {
	case fOffset:
		return 16, 4
	case fSize:
		return 20, 4
	default: // fAlign
		return 32, 4
	}
}

func (im *image) linkOff() int {
	if im.is64 {
		return 40
	}
	return 24
}

func (im *image) put32(h []byte, off int, v uint32) { im.order.PutUint32(h[off:], v) }

func (im *image) typ(i int) uint32 { return im.order.Uint32(im.headers[i][4:]) }

func (im *image) setAlign(i int, a uint64) { im.setField(im.headers[i], fAlign, a) }

func (im *image) setPlace(i int, off, size uint64) {
	im.setField(im.headers[i], fOffset, off)
	im.setField(im.headers[i], fSize, size)
}

func (im *image) name(i int, shstr []byte) string {
	off := uint64(im.order.Uint32(im.headers[i]))
	if off >= uint64(len(shstr)) {
		return ""
	}
	end := bytes.IndexByte(shstr[off:], 0)
	if end < 0 {
		return ""
	}
	return string(shstr[off : off+uint64(end)])
}

func (im *image) sectionData(i uint64) ([]byte, error) {
	h := im.headers[i]
	off, size := im.field(h, fOffset), im.field(h, fSize)
	if off > uint64(len(im.data)) || size > uint64(len(im.data))-off {
		return nil, fmt.Errorf("%s: section %d runs past the end of the file", im.path, i)
	}
	return im.data[off : off+size], nil
}

// setHeaderTable points the ELF header at the new section header table,
// using extended numbering when the count does not fit.
func (im *image) setHeaderTable(b []byte, shoff, count uint64) {
	shnum, shstrndx := count, im.shstrndx
	first := b[shoff : shoff+im.shentsz]
	if count >= shnLoreserve {
		im.setField(first, fSize, count)
		shnum = 0
	}
	if im.shstrndx >= shnLoreserve {
		im.order.PutUint32(first[im.linkOff():], uint32(im.shstrndx))
		shstrndx = shnXindex
	}
	if im.is64 {
		im.order.PutUint64(b[40:], shoff)
		im.order.PutUint16(b[60:], uint16(shnum))
		im.order.PutUint16(b[62:], uint16(shstrndx))
		return
	}
	im.order.PutUint32(b[32:], uint32(shoff))
	im.order.PutUint16(b[48:], uint16(shnum))
	im.order.PutUint16(b[50:], uint16(shstrndx))
}
