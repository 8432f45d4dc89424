# Rule O, "optimized parameters": the canonical instance lost parameters to
# optimization and its ABI no longer matches the source (DW_CC_nocall, or
# an .isra/.constprop symbol at its address). The loader has already folded
# the test into canonical.optimized_skip, which is false when
# true_signature is on. pahole-behaviour.md §8.6 steps 10-12.
package btfgate.functions

skip.optimized_parameters := {id: {"optimized parameters"} |
	input.functions[id].canonical.optimized_skip
	not emitted_as_true_signature(input.functions[id])
}
