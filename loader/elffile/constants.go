package elffile

import "strconv"

// ELF constants from the gABI, limited to those this package interprets or
// that callers commonly compare against.

// Class is the file class, EI_CLASS: the width of addresses and offsets.
type Class uint8

const (
	Class32 Class = 1 // ELFCLASS32
	Class64 Class = 2 // ELFCLASS64
)

// String returns "ELF32", "ELF64" or "ELFCLASS(n)".
func (c Class) String() string {
	switch c {
	case Class32:
		return "ELF32"
	case Class64:
		return "ELF64"
	}
	return "ELFCLASS(" + strconv.Itoa(int(c)) + ")"
}

// Object file types (e_type).
const (
	ET_NONE = 0
	ET_REL  = 1
	ET_EXEC = 2
	ET_DYN  = 3
	ET_CORE = 4
)

// Machines (e_machine): those whose relocations this package applies, and
// the others pahole knows the parameter registers of.
const (
	EM_SPARC   = 2
	EM_386     = 3
	EM_MIPS    = 8
	EM_PPC     = 20
	EM_PPC64   = 21
	EM_S390    = 22
	EM_ARM     = 40
	EM_SPARCV9 = 43
	EM_ARC     = 45
	EM_X86_64  = 62
	EM_AARCH64 = 183
	EM_RISCV   = 243
)

// Section types (sh_type).
const (
	SHT_NULL         = 0
	SHT_PROGBITS     = 1
	SHT_SYMTAB       = 2
	SHT_STRTAB       = 3
	SHT_RELA         = 4
	SHT_NOBITS       = 8
	SHT_REL          = 9
	SHT_DYNSYM       = 11
	SHT_SYMTAB_SHNDX = 18
)

// Section flags (sh_flags).
const (
	SHF_WRITE      = 0x1
	SHF_ALLOC      = 0x2
	SHF_EXECINSTR  = 0x4
	SHF_INFO_LINK  = 0x40
	SHF_GROUP      = 0x200
	SHF_TLS        = 0x400
	SHF_COMPRESSED = 0x800
)

// Special section indices.
const (
	SHN_UNDEF     = 0
	SHN_LORESERVE = 0xff00
	SHN_ABS       = 0xfff1
	SHN_COMMON    = 0xfff2
	SHN_XINDEX    = 0xffff
)

// Compression types (ch_type) of SHF_COMPRESSED sections.
const (
	ELFCOMPRESS_ZLIB = 1
	ELFCOMPRESS_ZSTD = 2
)

// Symbol types (STT_*) and bindings (STB_*).
const (
	STT_NOTYPE  = 0
	STT_OBJECT  = 1
	STT_FUNC    = 2
	STT_SECTION = 3
	STT_FILE    = 4
	STT_COMMON  = 5
	STT_TLS     = 6

	STB_LOCAL  = 0
	STB_GLOBAL = 1
	STB_WEAK   = 2
)

// Sizes of the on-disk structures.
const (
	ehdr32Size  = 52
	ehdr64Size  = 64
	shdr32Size  = 40
	shdr64Size  = 64
	sym32Size   = 16
	sym64Size   = 24
	chdr32Size  = 12
	chdr64Size  = 24
	rel32Size   = 8
	rela32Size  = 12
	rel64Size   = 16
	rela64Size  = 24
	eiNident    = 16
	evCurrent   = 1
	elfDataLSB  = 1
	elfDataMSB  = 2
	zdebugMagic = "ZLIB"
)
