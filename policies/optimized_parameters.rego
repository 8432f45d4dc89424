# Rule O, "optimized parameters": the canonical instance lost parameters to
# optimization and its ABI no longer matches the source (DW_CC_nocall, or
# an .isra/.constprop symbol at its address). The encoder (package functions,
# facts.go) has already folded the test into canonical.optimized_skip,
# which is false when true_signature is on. pahole-behaviour.md §8.6 steps
# 10-12.
#
# With clang, the parameters count as optimized only on the "locations"
# walk, that is for functions clang marked DW_CC_nocall
# (canonical.signature_changed, canonical.abi_walk): a parameter of such a
# function without a location is one clang removed from the call. On the
# "registers" walk (every other clang function) a missing location is not
# an optimized parameter, and signature_changed is false anyway.
package btfgate.functions

skip.optimized_parameters := {id: {"optimized parameters"} |
	input.functions[id].canonical.optimized_skip
	not emitted_as_true_signature(input.functions[id])
}
