package btfgate.variables_test

import data.btfgate.variable_decision as decision

test_pahole_order_names_every_pahole_rule if {
	rules := {name | some name, _ in data.btfgate.variables.pahole_messages}
	{name | some name in decision.pahole_order} == rules
}

test_keep_overrides_skip if {
	# a keep rule in a test package cannot add to btfgate.variables, so
	# the decision's documents are replaced
	docs := {"skip": {"mine": {1: {"x"}}}, "keep": {"k": {1: {"y"}}}}
	decision.left_out == set() with input as one({})
		with decision.skip as docs.skip
		with decision.keep as docs.keep
}

test_exclude_wins_and_conflicts_with_keep if {
	decision.left_out == {1} with input as one({})
		with decision.exclude as {"e": {1: {"x"}}}
	decision.conflicts == {1} with input as one({})
		with decision.exclude as {"e": {1: {"x"}}}
		with decision.keep as {"k": {1: {"y"}}}
}

test_malformed_documents_are_problems if {
	count(decision.problems) == 1 with input as one({})
		with decision.skip as {"bad": {7: {"x"}}}
	count(decision.problems) == 1 with input as one({})
		with decision.skip as {"bad": {1: "x"}}
}
