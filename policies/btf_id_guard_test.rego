package btfgate.functions_test

import data.btfgate.functions

# Function 1 is referenced from .BTF_ids and pahole keeps it; 2 is
# referenced too but pahole skips it (reordered); 3 is not referenced.
guarded := batch({1: {"name": "migrate_disable", "btf_id_ref": true}, 2: {"name": "bpf_iter_x", "btf_id_ref": true, "reordered": true}, 3: {"name": "other"}})

test_guard_refuses_a_deny_list_hiding_a_btf_id if {
	d := functions.deny.hides_btf_id with input as guarded
		with data.btfgate.config.deny as ["migrate_*", "other", "bpf_iter_*"]
	object.keys(d) == {1}
	some msg in d[1]
	contains(msg, "exclude.config_deny")
}

test_guard_refuses_a_user_skip_rule if {
	d := functions.deny.hides_btf_id with input as guarded
		with data.btfgate.functions.skip.mine as {1: {"mine"}}
	object.keys(d) == {1}
	some msg in d[1]
	contains(msg, "skip.mine")
}

test_guard_leaves_pahole_skips_alone if {
	count(functions.deny.hides_btf_id) == 0 with input as guarded
}

test_guard_can_be_turned_off if {
	count(functions.deny.hides_btf_id) == 0 with input as guarded
		with data.btfgate.config.deny as ["migrate_*"]
		with data.btfgate.config.allow_hiding_btf_ids as true
}
