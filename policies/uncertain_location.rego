# Rule C, "uncertain parameter location": some instance passes a named
# packed struct directly on the stack, where BPF cannot tell its layout.
# pahole-behaviour.md §8.6 step 5.
package btfgate.functions

skip.uncertain_location := {id: {"uncertain parameter location"} |
	input.functions[id].uncertain_loc
	not emitted_as_true_signature(input.functions[id])
}
