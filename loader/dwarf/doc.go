// Package dwarf is btfgate's DWARF 2–5 reader. It owns everything between
// the raw .debug_* section bytes and decoded debugging information entries:
// unit headers, abbreviation tables, attribute forms, the DIE walk, location
// lists (.debug_loclists and .debug_loc) and DWARF expressions.
//
// The package never touches ELF: its input is a Sections value holding
// section bytes that another package extracted (and, for relocatable
// objects, relocated). It is built for speed on large inputs such as a
// vmlinux: a Reader decodes entries into a caller-owned Entry whose Fields
// backing array is reused, strings and blocks are sub-slices of the section
// data, references are absolute .debug_info offsets and indexed forms
// (strx, addrx, loclistx, rnglistx) are resolved while decoding, so walking
// a unit allocates nothing per entry.
//
// A Data is safe for concurrent use; Readers are not, so use one Reader per
// goroutine. Malformed input never panics: decoding stops with a
// *DecodeError naming the file, section, offset and unit.
package dwarf
