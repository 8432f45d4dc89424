# Rule R, "reordered parameters": some instance of the group lists a
# parameter at another position than its abstract origin does (a clone
# that dropped or moved parameters). ORed over the whole group, so a .part
# body can veto its parent (pahole-behaviour.md §2.9 c, d).
package btfgate.functions

skip.reordered_parameters := {id: {"reordered parameters"} |
	input.functions[id].reordered
	not emitted_as_true_signature(input.functions[id])
}
