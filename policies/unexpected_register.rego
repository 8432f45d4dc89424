# Rule U, "unexpected register usage for parameter": some instance keeps a
# parameter in another register than the ABI assigns to its slot (and has
# no struct parameter), so the prototype would lie about where arguments
# are. pahole-behaviour.md §2.4, §2.5 and §8.6 step 7.
#
# The slot is the ABI walk's (params[_].abi_slot, expected_reg): on clang's
# "registers" walk a two-register aggregate may name either of its two
# registers and an aggregate in memory takes no slot; on the "locations"
# walk (gcc, clang DW_CC_nocall) the first register of the slot counts.
package btfgate.functions

skip.unexpected_register := {id: {"unexpected register usage for parameter"} |
	input.functions[id].unexpected_reg
	not emitted_as_true_signature(input.functions[id])
}
