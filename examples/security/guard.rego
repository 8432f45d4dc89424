# Guard: refuse any outcome that leaves out a function referenced from
# .BTF_ids (btf_id_ref). The kernel finds those functions by BTF id: kfunc
# sets, the BPF LSM hooks, helper allow lists (bpf_d_path's), the
# verifier's deny list for tracing. resolve_btfids writes their ids into
# .BTF_ids when the kernel is built; for a function missing from BTF it
# warns "unresolved symbol" and writes 0, and whatever the list enables (a
# kfunc, an LSM hook, d_path from that function) silently stops working.
#
# This is a deny rule: it reads the outcome (data.btfgate.decision) and
# fails the encode, naming each function and the rules that left it out.
package btfgate.functions

import data.btfgate.decision

deny.guard_btf_ids := {id: {sprintf("referenced from .BTF_ids; %s", [guard_why(id)])} |
	some id in decision.left_out
	input.functions[id].btf_id_ref
}

guard_why(id) := sprintf("excluded by %s", [guard_rules("exclude", decision.excluded_by[id])]) if {
	decision.excluded_by[id]
} else := sprintf("skipped by %s", [guard_rules("skip", decision.skipped_by[id])])

guard_rules(kind, names) := concat(", ", sort([sprintf("%s.%s", [kind, n]) | some n in names]))
