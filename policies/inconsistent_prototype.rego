# Rule I, "inconsistent prototype": two instances of the group disagree on
# parameter count, return type or a parameter type. Only a reason to skip
# with the consistent_func feature; without it pahole logs the mismatch
# (input.functions[id].mismatch) and emits the function anyway.
#
# The message keeps pahole's spelling ("inconsistet") so logs compare
# equal. pahole-behaviour.md §2.7 step 3 and §8.6 steps 8 and 12.
package btfgate.functions

skip.inconsistent_prototype := {id: {"inconsistet prototype"} |
	input.features.consistent_func
	input.functions[id].inconsistent
	not emitted_as_true_signature(input.functions[id])
}
