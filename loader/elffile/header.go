package elffile

import (
	"encoding/binary"
	"strings"
)

// parse validates the ELF header and the section header table of data and
// builds the File. Every section's data range is checked against the image
// here, so later readers only re-check cheaply.
func parse(path string, data []byte) (*File, error) {
	f := &File{Path: path, data: data, pages: pages{image: data}, limits: DefaultLimits()}
	if len(data) < eiNident {
		return nil, f.fileErr(0, "file is %d bytes, too small for an ELF identification", len(data))
	}
	if string(data[:4]) != "\x7fELF" {
		return nil, f.fileErr(0, "bad ELF magic %q", data[:4])
	}
	switch data[4] {
	case byte(Class32), byte(Class64):
		f.Class = Class(data[4])
	default:
		return nil, f.fileErr(4, "unknown ELF class %d", data[4])
	}
	switch data[5] {
	case elfDataLSB:
		f.ByteOrder = binary.LittleEndian
	case elfDataMSB:
		f.ByteOrder = binary.BigEndian
		f.order.big = true
	default:
		return nil, f.fileErr(5, "unknown ELF data encoding %d", data[5])
	}
	if data[6] != evCurrent {
		return nil, f.fileErr(6, "unknown ELF version %d", data[6])
	}

	var h header
	if err := h.decode(f); err != nil {
		return nil, err
	}
	f.Type, f.Machine = h.typ, h.machine
	if err := f.readSections(&h); err != nil {
		return nil, err
	}
	return f, nil
}

// header holds the ELF header fields needed to find the section table, with
// the file offsets of the fields for error messages.
type header struct {
	typ, machine             uint16
	shoff                    uint64
	shentsize, shnum, shstrx uint16
	offShoff, offShentsize   uint64
	offShnum, offShstrndx    uint64
}

func (h *header) decode(f *File) error {
	o, d := f.order, f.data
	if f.Class == Class64 {
		if len(d) < ehdr64Size {
			return f.fileErr(0, "file is %d bytes, too small for an ELF64 header (%d bytes)", len(d), ehdr64Size)
		}
		h.shoff = o.u64(d[40:])
		h.offShoff, h.offShentsize, h.offShnum, h.offShstrndx = 40, 58, 60, 62
	} else {
		if len(d) < ehdr32Size {
			return f.fileErr(0, "file is %d bytes, too small for an ELF32 header (%d bytes)", len(d), ehdr32Size)
		}
		h.shoff = uint64(o.u32(d[32:]))
		h.offShoff, h.offShentsize, h.offShnum, h.offShstrndx = 32, 46, 48, 50
	}
	h.typ = o.u16(d[16:])
	h.machine = o.u16(d[18:])
	h.shentsize = o.u16(d[h.offShentsize:])
	h.shnum = o.u16(d[h.offShnum:])
	h.shstrx = o.u16(d[h.offShstrndx:])
	return nil
}

// shdrSize is the size of one section header for the file's class.
func (f *File) shdrSize() uint64 {
	if f.Class == Class64 {
		return shdr64Size
	}
	return shdr32Size
}

// readSections decodes and validates the section header table.
func (f *File) readSections(h *header) error {
	if h.shoff == 0 {
		if h.shnum != 0 {
			return f.fileErr(h.offShnum, "e_shnum is %d but e_shoff is 0 (no section header table)", h.shnum)
		}
		return nil
	}
	size := uint64(len(f.data))
	entsize := uint64(h.shentsize)
	if entsize < f.shdrSize() {
		return f.fileErr(h.offShentsize, "e_shentsize %d is smaller than a %s section header (%d bytes)", entsize, f.Class, f.shdrSize())
	}
	if h.shoff > size || size-h.shoff < entsize {
		return f.fileErr(h.offShoff, "e_shoff 0x%x leaves no room for a section header in a file of 0x%x bytes (is the file truncated?)", h.shoff, size)
	}

	// Section 0 carries the real count and string table index when they
	// overflow the 16-bit header fields (extended section numbering).
	s0 := f.decodeShdr(h.shoff)
	count := uint64(h.shnum)
	if count == 0 {
		count = s0.Size
		if count == 0 {
			return nil
		}
	}
	if count > (size-h.shoff)/entsize {
		return f.fileErr(h.offShnum, "%d section headers of %d bytes at 0x%x exceed the file size 0x%x", count, entsize, h.shoff, size)
	}
	strndx := uint64(h.shstrx)
	if h.shstrx == SHN_XINDEX {
		strndx = uint64(s0.Link)
	} else if h.shstrx >= SHN_LORESERVE {
		return f.fileErr(h.offShstrndx, "e_shstrndx 0x%x is a reserved section index", h.shstrx)
	}
	if strndx >= count {
		return f.fileErr(h.offShstrndx, "section name table index %d out of range (%d sections)", strndx, count)
	}

	f.Sections = make([]Section, count) // bounded by the file size above
	for i := range f.Sections {
		hdrOff := h.shoff + uint64(i)*entsize
		s := &f.Sections[i]
		*s = f.decodeShdr(hdrOff)
		s.Index = i
		if s.Type == SHT_NOBITS || s.Type == SHT_NULL {
			continue
		}
		if s.Offset > size || s.Size > size-s.Offset {
			return f.fileErr(hdrOff, "section header %d: data at 0x%x+0x%x lies outside the file (0x%x bytes)", i, s.Offset, s.Size, size)
		}
	}
	f.table = SectionTable{Offset: h.shoff, EntrySize: entsize, Names: int(strndx)}
	if strndx != SHN_UNDEF {
		return f.nameSections(h, strndx)
	}
	return nil
}

// SectionTable is where the section header table lies and which section
// holds the section names, for writers that rewrite the table (elfedit).
type SectionTable struct {
	Offset    uint64 // e_shoff; 0 if the file has no section header table
	EntrySize uint64 // e_shentsize
	Names     int    // e_shstrndx, extended numbering resolved; 0 if none
}

// SectionTable returns where f's section header table lies.
func (f *File) SectionTable() SectionTable { return f.table }

// decodeShdr decodes the section header at file offset off, which the caller
// has checked to be in range.
func (f *File) decodeShdr(off uint64) Section {
	o, b := f.order, f.data[off:]
	if f.Class == Class64 {
		return Section{
			Type:      o.u32(b[4:]),
			Flags:     o.u64(b[8:]),
			Addr:      o.u64(b[16:]),
			Offset:    o.u64(b[24:]),
			Size:      o.u64(b[32:]),
			Link:      o.u32(b[40:]),
			Info:      o.u32(b[44:]),
			Addralign: o.u64(b[48:]),
			Entsize:   o.u64(b[56:]),
		}
	}
	return Section{
		Type:      o.u32(b[4:]),
		Flags:     uint64(o.u32(b[8:])),
		Addr:      uint64(o.u32(b[12:])),
		Offset:    uint64(o.u32(b[16:])),
		Size:      uint64(o.u32(b[20:])),
		Link:      o.u32(b[24:]),
		Info:      o.u32(b[28:]),
		Addralign: uint64(o.u32(b[32:])),
		Entsize:   uint64(o.u32(b[36:])),
	}
}

// nameSections resolves every sh_name through the section name table. The
// table is copied once into a string and the names are substrings of it, so
// they survive Close.
func (f *File) nameSections(h *header, strndx uint64) error {
	st := &f.Sections[strndx]
	if st.Type == SHT_NOBITS || st.Type == SHT_NULL {
		return f.fileErr(h.offShstrndx, "section name table (section %d) has type %d and no data", strndx, st.Type)
	}
	if st.Flags&SHF_COMPRESSED != 0 {
		return f.fileErr(h.offShstrndx, "section name table (section %d) is compressed", strndx)
	}
	table := string(f.data[st.Offset : st.Offset+st.Size])
	entsize := uint64(h.shentsize)
	for i := range f.Sections {
		off := uint64(f.o32(h.shoff + uint64(i)*entsize))
		name, ok := cString(table, off)
		if !ok {
			return f.fileErr(h.shoff+uint64(i)*entsize, "section header %d: sh_name 0x%x outside the section name table (0x%x bytes) or unterminated", i, off, st.Size)
		}
		f.Sections[i].Name = name
	}
	return nil
}

// o32 reads a 32-bit field at a checked file offset.
func (f *File) o32(off uint64) uint32 { return f.order.u32(f.data[off:]) }

// cString returns the NUL-terminated string at off in table.
func cString(table string, off uint64) (string, bool) {
	if off >= uint64(len(table)) {
		return "", false
	}
	s := table[off:]
	n := strings.IndexByte(s, 0)
	if n < 0 {
		return "", false
	}
	return s[:n], true
}
