# The built-in guard: a user rule must not hide a function that pahole's
# rules keep and that the kernel finds by BTF id (btf_id_ref: referenced
# from .BTF_ids: kfunc sets, BPF LSM hooks, helper allow lists, the
# verifier's deny list for tracing). resolve_btfids writes 0 for a
# function missing from BTF, with only an "unresolved symbol" warning, and
# whatever the list enables silently stops working.
#
# It fires on a function that some rule leaves out (an exclude rule, a
# deny list of a rules file, a skip rule of a user module) while none of
# pahole's six skip rules does: the default output has it, the user's
# does not. data.btfgate.config.allow_hiding_btf_ids: true (the
# --allow-hiding-btf-ids flag) turns it off.
package btfgate.functions

import data.btfgate.decision

deny.hides_btf_id := {id: {sprintf("referenced from .BTF_ids (the kernel resolves it by BTF id) and kept by pahole's rules, but %s leaves it out; --allow-hiding-btf-ids allows it", [btf_id_guard_by(id)])} |
	not data.btfgate.config.allow_hiding_btf_ids
	some id in decision.left_out
	input.functions[id].btf_id_ref
	not btf_id_guard_pahole_skips(id)
}

btf_id_guard_pahole_skips(id) if {
	some name in decision.pahole_order
	decision.skip[name][id]
}

btf_id_guard_by(id) := concat(", ", sort([sprintf("exclude.%s", [n]) | some n in decision.excluded_by[id]])) if {
	decision.excluded_by[id]
} else := concat(", ", sort([sprintf("skip.%s", [n]) | some n in decision.skipped_by[id]]))
