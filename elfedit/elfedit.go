// Package elfedit adds or replaces sections (.BTF, .BTF.base) in an ELF
// file image, in pure Go, the way "objcopy --add-section" or pahole's
// in-place update does; writing the result is the caller's
// (internal/outputs). It reads the image through loader/elffile, which
// checks it, and owns only the rewriting of the section header table.
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

	"github.com/btfgate/btfgate/loader/elffile"
)

// Section is a section to add or replace.
type Section struct {
	Name string
	Data []byte
}

// image is an ELF file being edited: what elffile read of it, and copies of
// the section headers to rewrite.
type image struct {
	order    binary.ByteOrder
	is64     bool
	shentsz  uint64
	shstrndx uint64
	names    []string // section names, in index order
	headers  [][]byte // copies of the section headers
}

// Edit returns a copy of the ELF image data (named path in errors) with
// secs added or replaced.
func Edit(path string, data []byte, secs ...Section) ([]byte, error) {
	im, shstr, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	names := append([]byte(nil), shstr...)
	out := bytes.NewBuffer(append([]byte(nil), data...))
	for _, s := range secs {
		idx := -1
		for i, name := range im.names {
			if name == s.Name {
				idx = i
				break
			}
		}
		if idx >= 0 && im.typ(idx) == elffile.SHT_NOBITS {
			im.put32(im.headers[idx], 4, elffile.SHT_PROGBITS)
		}
		off := align(uint64(out.Len()), 8)
		out.Write(make([]byte, off-uint64(out.Len())))
		out.Write(s.Data)
		if idx < 0 {
			nameOff := uint64(len(names))
			names = append(append(names, s.Name...), 0)
			h := make([]byte, im.shentsz)
			im.put32(h, 0, uint32(nameOff))
			im.put32(h, 4, elffile.SHT_PROGBITS)
			im.headers = append(im.headers, h)
			im.names = append(im.names, s.Name)
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

// parse reads data through elffile (which checks the header and the
// section table) and copies the section headers, which Edit rewrites. It
// also returns the section name table.
func parse(path string, data []byte) (*image, []byte, error) {
	f, err := elffile.NewFile(path, data)
	if err != nil {
		return nil, nil, err
	}
	t := f.SectionTable()
	want := uint64(40)
	if f.Class == elffile.Class64 {
		want = 64
	}
	if t.Offset == 0 || t.EntrySize != want || t.Names == 0 {
		return nil, nil, fmt.Errorf("%s: no usable section header table (e_shoff %#x, e_shentsize %d, section names in section %d)",
			path, t.Offset, t.EntrySize, t.Names)
	}
	shstr, err := f.SectionData(&f.Sections[t.Names])
	if err != nil {
		return nil, nil, err
	}
	im := &image{order: f.ByteOrder, is64: f.Class == elffile.Class64, shentsz: want, shstrndx: uint64(t.Names)}
	for i := range f.Sections {
		at := t.Offset + uint64(i)*want
		im.headers = append(im.headers, append([]byte(nil), data[at:at+want]...))
		im.names = append(im.names, f.Sections[i].Name)
	}
	return im, shstr, nil
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

// setHeaderTable points the ELF header at the new section header table,
// using extended numbering when the count does not fit.
func (im *image) setHeaderTable(b []byte, shoff, count uint64) {
	shnum, shstrndx := count, im.shstrndx
	first := b[shoff : shoff+im.shentsz]
	if count >= elffile.SHN_LORESERVE {
		im.setField(first, fSize, count)
		shnum = 0
	}
	if im.shstrndx >= elffile.SHN_LORESERVE {
		im.order.PutUint32(first[im.linkOff():], uint32(im.shstrndx))
		shstrndx = elffile.SHN_XINDEX
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
