# Rule A, "ambiguous address": the group's ELF symbols sit at two or more
# distinct addresses, so no single address can be attached to the FUNC.
# pahole: btf_encoder.c elf_function__has_ambiguous_address();
# pahole-behaviour.md §2.7 step 6 and §8.6 step 12.
package btfgate.functions

skip.ambiguous_address := {id: {"ambiguous address"} |
	input.functions[id].ambiguous_addr
	not emitted_as_true_signature(input.functions[id])
}
