package btfgate.examples.security_test

import data.btfgate.decision
import data.btfgate.functions

test_guard_refuses_excluding_a_btf_id_function if {
	given := batch({1: {"btf_id_ref": true}, 2: {}})
	d := functions.deny with input as given
		with data.btfgate.functions.exclude.mine as {1: {"no"}, 2: {"no"}}
	d.guard_btf_ids == {1: {"referenced from .BTF_ids; excluded by exclude.mine"}}
}

test_guard_names_every_rule if {
	given := batch({1: {"btf_id_ref": true, "reordered": true, "unexpected_reg": true}})
	functions.deny.guard_btf_ids == {1: {"referenced from .BTF_ids; skipped by skip.reordered_parameters, skip.unexpected_register"}} with input as given
	functions.deny.guard_btf_ids == {1: {"referenced from .BTF_ids; excluded by exclude.a, exclude.b"}} with input as given
		with data.btfgate.functions.exclude.a as {1: {"no"}}
		with data.btfgate.functions.exclude.b as {1: {"no"}}
}

test_guard_sees_trace_safety if {
	given := batch({1: object.union(noinstr, {"btf_id_ref": true})})
	r := decision.result with input as given
	r.deny.guard_btf_ids == {1: {"referenced from .BTF_ids; excluded by exclude.trace_safety"}}
}

test_guard_allows_what_stays_in if {
	given := batch({1: {"btf_id_ref": true, "reordered": true}, 2: {"btf_id_ref": true}})
	r := decision.result with input as given
		with data.btfgate.functions.keep.mine as {1: {"wanted"}}
	count(r.left_out) == 0
	r.deny.guard_btf_ids == {}
}

test_guard_allows_annotating if {
	given := batch({1: object.union(noinstr, {"btf_id_ref": true})})
	r := decision.result with input as given
		with data.btfgate.config.trace_safety as {"mode": "annotate"}
	r.deny.guard_btf_ids == {}
	r.documents.annotate.trace_safety == {1: {"btfgate:no_trace"}}
}
