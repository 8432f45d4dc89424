package brokentest

import (
	"encoding/binary"

	"github.com/btfgate/btfgate/loader/elffile"
)

// miniSym is a symbol of miniELF's .symtab.
type miniSym struct {
	name  string
	value uint64
	size  uint64
	typ   uint8 // STT_FUNC, STT_OBJECT
	text  bool  // in .text, else in .bss
}

// miniSymbols are the symbols the synthetic DWARF refers to: the
// functions of hostFuncs and a few variables.
func miniSymbols() []miniSym {
	var syms []miniSym
	for i, n := range hostFuncs {
		syms = append(syms, miniSym{name: n, value: 0x2000 + uint64(i)*0x40, size: 0x40, typ: elffile.STT_FUNC, text: true})
	}
	for i, n := range []string{"base_bool", "arr_3d", "arr_1d"} {
		syms = append(syms, miniSym{name: n, value: 0x5000 + uint64(i)*0x100, size: 8, typ: elffile.STT_OBJECT})
	}
	return syms
}

// miniELF returns a small little-endian x86-64 shared object with the
// given DWARF sections, a .text, a .bss and a .symtab: enough for an
// encode, and small enough to commit as a fuzz seed.
func miniELF(info, abbrev []byte) []byte {
	le := binary.LittleEndian
	type sec struct {
		name              string
		typ               uint32
		flags, addr, size uint64
		data              []byte
		link, info        uint32
		entsize, align    uint64
	}
	var strtab []byte = []byte{0}
	var symtab []byte = make([]byte, 24) // null symbol
	for _, s := range miniSymbols() {
		name := uint32(len(strtab))
		strtab = append(append(strtab, s.name...), 0)
		shndx := uint16(2) // .bss
		if s.text {
			shndx = 1
		}
		var e [24]byte
		le.PutUint32(e[0:], name)
		e[4] = 1<<4 | s.typ // STB_GLOBAL
		le.PutUint16(e[6:], shndx)
		le.PutUint64(e[8:], s.value)
		le.PutUint64(e[16:], s.size)
		symtab = append(symtab, e[:]...)
	}
	secs := []sec{
		{},
		{name: ".text", typ: elffile.SHT_PROGBITS, flags: 6, addr: 0x2000, data: make([]byte, 0x40*len(hostFuncs)), align: 16},
		{name: ".bss", typ: elffile.SHT_NOBITS, flags: 3, addr: 0x5000, size: 0x1000, align: 64},
		{name: ".debug_info", typ: elffile.SHT_PROGBITS, data: info, align: 1},
		{name: ".debug_abbrev", typ: elffile.SHT_PROGBITS, data: abbrev, align: 1},
		{name: ".symtab", typ: elffile.SHT_SYMTAB, data: symtab, link: 6, info: 1, entsize: 24, align: 8},
		{name: ".strtab", typ: elffile.SHT_STRTAB, data: strtab, align: 1},
		{name: ".shstrtab", typ: elffile.SHT_STRTAB, align: 1},
	}
	shstr := []byte{0}
	names := make([]uint32, len(secs))
	for i := 1; i < len(secs); i++ {
		names[i] = uint32(len(shstr))
		shstr = append(append(shstr, secs[i].name...), 0)
	}
	secs[len(secs)-1].data = shstr

	out := make([]byte, 64)
	offs := make([]uint64, len(secs))
	for i := 1; i < len(secs); i++ {
		s := &secs[i]
		if s.typ == elffile.SHT_NOBITS {
			offs[i] = uint64(len(out))
			continue
		}
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		offs[i] = uint64(len(out))
		out = append(out, s.data...)
		s.size = uint64(len(s.data))
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	for i, s := range secs {
		var h [64]byte
		le.PutUint32(h[0:], names[i])
		le.PutUint32(h[4:], s.typ)
		le.PutUint64(h[8:], s.flags)
		le.PutUint64(h[16:], s.addr)
		le.PutUint64(h[24:], offs[i])
		le.PutUint64(h[32:], s.size)
		le.PutUint32(h[40:], s.link)
		le.PutUint32(h[44:], s.info)
		le.PutUint64(h[48:], s.align)
		le.PutUint64(h[56:], s.entsize)
		out = append(out, h[:]...)
	}
	copy(out, "\x7fELF\x02\x01\x01")
	le.PutUint16(out[16:], elffile.ET_DYN)
	le.PutUint16(out[18:], 62) // EM_X86_64
	le.PutUint32(out[20:], 1)
	le.PutUint64(out[40:], shoff)
	le.PutUint16(out[52:], 64)
	le.PutUint16(out[58:], 64)
	le.PutUint16(out[60:], uint16(len(secs)))
	le.PutUint16(out[62:], uint16(len(secs)-1))
	return out
}
