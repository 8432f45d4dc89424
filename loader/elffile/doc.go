// Package elffile reads the parts of an ELF object that a BTF encoder needs:
// the header, the section table, the symbol table and the DWARF sections,
// decompressed (SHF_COMPRESSED zlib/zstd, legacy .zdebug) and, for
// relocatable objects such as kernel modules, with their .rel/.rela
// relocations applied as if every section were loaded at address 0.
//
// It owns ELF decoding and nothing above it: DWARF and BTF live elsewhere.
//
// Open maps the file read-only and touches only the headers; section data is
// returned as slices of the mapping (zero-copy) unless it had to be
// decompressed or relocated, in which case it is a private copy. Slices of
// the mapping are valid until Close; section and symbol names are copies
// and stay valid after it. Reading a section is one pass (sections.go):
// locate, bound what decompression claims (Limits), decompress or copy,
// relocate, hand out; one type (pages, pages.go) owns the mapping, the
// copies and every release of their pages (Release, Discard).
//
// The input is treated as hostile: every offset, size and count read from the
// file is checked before use, no allocation is sized by an unchecked count,
// and malformed input yields a *FormatError naming the file, the section and
// the offset, never a panic.
//
// The format is specified by the System V gABI, chapter 4 ("Object Files"),
// and each architecture's psABI for relocation types.
package elffile
