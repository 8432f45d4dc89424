// Package loader turns an ELF file with DWARF into what the rest of btfgate
// works on: per compile unit, the table of type DIEs in the order pahole
// numbers them (its types_table), with every reference resolved to a table
// index. Later stages convert each table into BTF (package btf).
//
// The ELF and DWARF decoding itself lives in the subpackages elffile and
// dwarf; this package owns the interpretation of DWARF the way pahole's
// dwarf_loader does it (which DIEs are types, nesting order, member offsets,
// enum signedness, array dimensions, type and decl tags), documented in
// ../shared/docs/pahole-behaviour.md §5.
package loader
