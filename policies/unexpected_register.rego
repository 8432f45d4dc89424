# Rule U, "unexpected register usage for parameter": some instance keeps a
# parameter in another register than the ABI assigns to its slot (and has
# no struct parameter), so the prototype would lie about where arguments
# are. pahole-behaviour.md §2.4, §2.5 and §8.6 step 7.
package btfgate.functions

skip.unexpected_register := {id: {"unexpected register usage for parameter"} |
	input.functions[id].unexpected_reg
	not emitted_as_true_signature(input.functions[id])
}
