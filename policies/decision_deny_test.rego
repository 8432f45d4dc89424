# Tests of decision.rego's deny document and of the outcome helpers deny
# rules read (excluded_by, skipped_by, kept_by).
package btfgate.functions_test

import data.btfgate.decision

test_decision_rules_behind_the_outcome if {
	given := batch({1: {"reordered": true}, 2: {"reordered": true}, 3: {}})
	rules := {"keep": {"mine": {2: {"wanted"}}}, "exclude": {"theirs": {3: {"unwanted"}}}}
	decision.excluded_by == {3: {"theirs"}} with input as given
		with data.btfgate.functions.keep as rules.keep
		with data.btfgate.functions.exclude as rules.exclude
	decision.skipped_by == {1: {"reordered_parameters"}, 2: {"reordered_parameters"}} with input as given
		with data.btfgate.functions.keep as rules.keep
		with data.btfgate.functions.exclude as rules.exclude
	decision.kept_by == {2: {"mine"}} with input as given
		with data.btfgate.functions.keep as rules.keep
		with data.btfgate.functions.exclude as rules.exclude
}

test_decision_deny_is_in_the_result_and_does_not_decide if {
	r := decision.result with input as batch({1: {}, 2: {}})
		with data.btfgate.functions.deny as {"guard": {1: {"no"}}}
	r.deny == {"guard": {1: {"no"}}}
	r.left_out == set()
	count(r.problems) == 0
}

test_decision_deny_shape_is_checked if {
	p := decision.problems with input as one({})
		with data.btfgate.functions.deny as {"guard": {1: "no"}}
	p == {{"kind": "deny", "rule": "guard", "problem": "entry for 1 (f) is string, want a set: write deny.guard[id] contains VALUE"}}
}

test_decision_deny_documents_are_not_deciding if {
	docs := decision.documents with input as one({})
	object.keys(docs) == {"skip", "exclude", "keep", "annotate"}
}
