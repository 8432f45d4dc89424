package loader

// pahole quirk: the last ELF base name is never ambiguous.
//
// pahole 1.31 (btf_encoder.c, elf_functions__collect) computes a name's
// ambiguous-address flag while it moves on to the next name in sorted
// order, so the last name never gets it whatever its addresses
// (pahole-behaviour.md §2.9 b). Reproduced for equal output; the
// ambiguous_address policy sees the flag as pahole has it.

// paholeAmbiguous is the ambiguous-address flag pahole gives the function
// symbols syms of one base name; last says it is the last name.
func paholeAmbiguous(syms []ElfSym, last bool) bool {
	if last {
		return false
	}
	return ambiguous(syms)
}

// ambiguous is pahole's elf_function__has_ambiguous_address, including its
// treatment of a zero first address.
func ambiguous(syms []ElfSym) bool {
	if len(syms) <= 1 {
		return false
	}
	var addr uint64
	for _, s := range syms {
		if addr != 0 && addr != s.Value {
			return true
		}
		addr = s.Value
	}
	return false
}
