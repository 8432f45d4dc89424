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
	some id in btf_id_guard_suspects
	input.functions[id].btf_id_ref
	decision.left_out[id]
	not btf_id_guard_pahole_skips(id)
}

# The functions the guard can refuse: one that is left out while none of
# pahole's skip rules names it is named by an exclude rule or by a skip
# rule other than pahole's. The guard looks at those alone: without such
# rules (most encodes) there are none, and it reads neither the facts nor
# the outcome (left_out), which would cost more than the rest of a small
# batch's decision.
btf_id_guard_suspects := {id |
	some docs in [decision.exclude, object.remove(decision.skip, decision.pahole_order)]
	some by_id in docs
	is_object(by_id)
	some id, _ in by_id
}

btf_id_guard_pahole_skips(id) if {
	some name in decision.pahole_order
	decision.skip[name][id]
}

btf_id_guard_by(id) := concat(", ", sort([sprintf("exclude.%s", [n]) | some n in decision.excluded_by[id]])) if {
	decision.excluded_by[id]
} else := concat(", ", sort([sprintf("skip.%s", [n]) | some n in decision.skipped_by[id]]))
