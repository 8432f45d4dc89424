package btfgate.functions_test

import data.btfgate.decision

test_decision_leaves_out_skipped_functions if {
	out := decision.left_out with input as batch({1: {"reordered": true}, 2: {}, 3: {"ambiguous_addr": true}})
	out == {1, 3}
}

test_decision_every_pahole_reason_is_kept_for_the_report if {
	given := one({"unexpected_reg": true, "reordered": true, "canonical": {"optimized_skip": true}})
	docs := decision.documents with input as given
	{name | some name, by_id in docs.skip; by_id[1]} == {"optimized_parameters", "reordered_parameters", "unexpected_register"}
}

test_decision_pahole_order if {
	decision.pahole_order == [
		"ambiguous_address", "optimized_parameters", "reordered_parameters",
		"uncertain_location", "inconsistent_prototype", "unexpected_register",
	]
}

test_decision_true_signature_emits_even_ambiguous if {
	given := with_features({"ambiguous_addr": true, "true_sig": {"true_sym": "f.isra.0"}}, {"true_signature": true})
	count(decision.left_out) == 0 with input as given
}

test_decision_keep_overrides_skip if {
	out := decision.left_out with input as batch({1: {"reordered": true}, 2: {"reordered": true}})
		with data.btfgate.functions.keep as {"mine": {1: {"wanted"}}}
	out == {2}
}

test_decision_exclude_wins_over_keep_and_conflicts if {
	given := batch({1: {}, 2: {}})
	out := decision.left_out with input as given
		with data.btfgate.functions.keep as {"mine": {1: {"wanted"}}}
		with data.btfgate.functions.exclude as {"theirs": {1: {"unwanted"}, 2: {"unwanted"}}}
	out == {1, 2}
	conflicts := decision.conflicts with input as given
		with data.btfgate.functions.keep as {"mine": {1: {"wanted"}}}
		with data.btfgate.functions.exclude as {"theirs": {1: {"unwanted"}, 2: {"unwanted"}}}
	conflicts == {1}
}

test_decision_user_skip_is_overridable if {
	given := batch({1: {}, 2: {}})
	out := decision.left_out with input as given
		with data.btfgate.functions.skip.local as {1: {"a"}, 2: {"b"}}
		with data.btfgate.functions.keep.mine as {2: {"wanted"}}
	out == {1}
}

test_decision_annotations_do_not_leave_out if {
	count(decision.left_out) == 0 with input as one({})
		with data.btfgate.functions.annotate as {"tagger": {1: {"b"}}}
}

test_decision_reports_keys_that_are_not_ids if {
	p := decision.problems with input as one({})
		with data.btfgate.functions.exclude as {"by_name": {"f": {"gone"}}}
	p == {{"kind": "exclude", "rule": "by_name", "problem": "key \"f\" is not the id of a function in input.functions"}}
}

test_decision_reports_entries_that_are_not_sets if {
	p := decision.problems with input as one({})
		with data.btfgate.functions.skip as {"single": {1: "msg"}}
	p == {{"kind": "skip", "rule": "single", "problem": "entry for 1 (f) is string, want a set: write skip.single[id] contains VALUE"}}
}

test_decision_reports_documents_that_are_not_objects if {
	p := decision.problems with input as one({})
		with data.btfgate.functions.keep as {"flat": {1}}
	p == {{"kind": "keep", "rule": "flat", "problem": "want an object keyed by function id"}}
}

test_decision_no_problems_from_the_default_rules if {
	count(decision.problems) == 0 with input as one({"reordered": true, "ambiguous_addr": true})
}

test_decision_true_signature_is_its_own_query if {
	given := batch({1: {"canonical": {"optimized_skip": true}}, 2: {}})
	r := decision.true_signature_result with input as given
		with data.btfgate.functions.true_signature.mine as {1: {"wanted"}}
	r == {"true_signature": {"mine": {1: {"wanted"}}}, "problems": set()}

	# The selection does not change the outcome by itself: the encoder
	# recomputes the selected groups' facts, then decides.
	decision.left_out == {1} with input as given
		with data.btfgate.functions.true_signature.mine as {1: {"wanted"}}
}

test_decision_true_signature_shape_is_checked if {
	r := decision.true_signature_result with input as one({})
		with data.btfgate.functions.true_signature as {"flat": {1: "x"}, "by_name": {"f": {"x"}}}
	r.problems == {
		{"kind": "true_signature", "rule": "flat", "problem": "entry for 1 (f) is string, want a set: write true_signature.flat[id] contains VALUE"},
		{"kind": "true_signature", "rule": "by_name", "problem": "key \"f\" is not the id of a function in input.functions"},
	}
}
