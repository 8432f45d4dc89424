// Package btf owns btfgate's in-memory BTF: the type section (Types, in raw
// encoding as host-endian uint32 words, addressed by integer TypeID), the
// string table (Strings), builders that append one type each, splicing of
// per-compile-unit fragments (Types.Append), the raw reader (Parse) and writer
// (Types.Marshal), and Dedup, a reimplementation of libbpf's btf__dedup that
// yields the same types in the same order.
//
// The format is specified in the Linux kernel's Documentation/bpf/btf.rst;
// pahole's use of it is described in docs/pahole-behaviour.md (§5.11, §5.12).
// Split BTF (kernel modules) is a Types whose Base is the kernel's Types: its
// ids continue after the base's last id and its string offsets after the
// base's string section.
package btf
