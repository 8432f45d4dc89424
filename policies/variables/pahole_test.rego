package btfgate.variables_test

import data.btfgate.variable_decision as decision
import data.btfgate.variables

# A variable pahole encodes with --btf_features=default: a percpu one.
clean := {
	"id": 1,
	"name": "runqueues",
	"section": ".data..percpu",
	"addr": 4096,
	"offset": 4096,
	"size": 3072,
	"type": "struct rq",
	"void_type": false,
	"valid_name": true,
	"name_filtered": false,
	"external": true,
	"percpu": true,
	"in_symtab": true,
	"cu": 0,
	"die": 100,
	"pahole_skip": "",
}

default_features := {"var": true, "global_var": false, "encode_force": false}

one(facts) := with_features(facts, {})

with_features(facts, features) := {
	"features": object.union(default_features, features),
	"variables": {1: object.union(clean, facts)},
}

reason(facts) := r if {
	r := variables.pahole_reason[1] with input as one(facts)
}

test_percpu_goes_in if {
	count(variables.pahole_reason) == 0 with input as one({})
	count(decision.left_out) == 0 with input as one({})
}

test_pahole_skip_is_the_reason if {
	data_var := {"section": ".data", "percpu": false, "pahole_skip": "section_not_encoded"}
	reason(data_var) == "section_not_encoded"
	decision.left_out == {1} with input as one(data_var)
	decision.result.pahole_reason == {1: "section_not_encoded"} with input as one(data_var)
}

test_every_reason_has_a_message_and_a_rank if {
	every r in decision.pahole_order {
		variables.pahole_messages[r] != ""
		reason({"pahole_skip": r}) == r
	}
	count(decision.pahole_order) == count(variables.pahole_messages)
}

test_keep_does_not_hide_a_pahole_reason if {
	# a keep rule puts the variable in; the encoder then fails naming it,
	# since it builds no VAR for a variable pahole leaves out
	x := one({"pahole_skip": "no_symbol"})
	decision.left_out == {1} with input as x
	count(decision.left_out) == 0 with input as x with variables.keep as {"mine": {1: {"wanted"}}}
}
