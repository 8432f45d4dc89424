// Package btf owns btfgate's in-memory BTF and nothing of DWARF or ELF: the
// type section (Types, in raw encoding as host-endian uint32 words,
// addressed by integer TypeID), the string table (Strings), builders that
// append one type each, the kind table (Kind), splicing of per-compile-unit
// fragments in unit order (Fragment, Splicer; package convert builds the
// fragments), Dedup, a reimplementation of libbpf's btf__dedup that yields
// the same types in the same order, the distilled base (DistillBase), the raw reader
// (Parse) and writer (Types.Marshal), and the check of written BTF against
// the kernel's rules (Types.Validate).
//
// The format is specified in the Linux kernel's Documentation/bpf/btf.rst;
// pahole's use of it is described in docs/pahole-behaviour.md (§5.11, §5.12).
// Split BTF (kernel modules) is a Types whose Base is the kernel's Types: its
// ids continue after the base's last id and its string offsets after the
// base's string section.
package btf
