// Package btfdiff compares two BTF blobs by content rather than by type id.
//
// Two encoders can write the same types under different ids and in a
// different order, so btfdiff turns every type into a canonical content key:
// its kind and everything BTF records about it, where references to named
// types (struct, union, enum, enum64, typedef, fwd, int, float) are written
// as kind and name, and references to anonymous types (pointers, qualifiers,
// arrays, function prototypes, type tags, anonymous structs, unions and
// enums) are expanded in place. A Set is the multiset of those keys per kind,
// plus indexes of functions, variables and named types by name; Compare turns
// two Sets into a Report of count differences, keys found on one side only,
// and functions, variables and named types added, removed or changed.
//
// Input is raw BTF (base or split, either byte order, with the 24-byte or the
// 32-byte header of current libbpf) or an ELF file holding a .BTF section,
// read through loader/elffile. The BTF is decoded by btf.ParseLenient, with
// btf's kind table: it checks all that reading the types depends on and
// lets through what the kernel refuses only on meaning (reserved info bits,
// a FUNC not on a FUNC_PROTO, a FWD with a type word), which keys then show,
// so that a diff describes such BTF rather than failing. Keys are rendered
// from the raw words, not from cilium/ebpf's types, which fold decl tags
// into their targets, merge ENUM64 into ENUM and drop INT bit offsets and
// tag kind flags, all of which a content comparison must see.
package btfdiff
