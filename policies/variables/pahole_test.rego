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

test_other_sections_need_global_var if {
	data_var := {"section": ".data", "percpu": false}
	reason(data_var) == "section_not_encoded"
	decision.left_out == {1} with input as one(data_var)
	count(decision.left_out) == 0 with input as with_features(data_var, {"global_var": true})
}

test_percpu_needs_var if {
	variables.pahole_reason[1] == "section_not_encoded" with input as with_features({}, {"var": false})
}

test_no_section_comes_first if {
	reason({"section": "", "percpu": false, "name": ""}) == "no_section"
}

test_no_name if {
	reason({"name": ""}) == "no_name"
}

test_filtered_names if {
	reason({"name": "__UNIQUE_ID_x12", "name_filtered": true}) == "filtered_name"
	count(variables.pahole_reason) == 0 with input as one({"name": "__per_cpu_offset"})
}

test_offset_zero_needs_a_symbol if {
	reason({"offset": 0, "in_symtab": false}) == "no_symbol"
	count(variables.pahole_reason) == 0 with input as one({"offset": 0, "in_symtab": true})
	count(variables.pahole_reason) == 0 with input as one({"in_symtab": false})
}

test_invalid_name_and_void_only_with_encode_force if {
	# without encode_force the encode fails on them, before any policy
	count(variables.pahole_reason) == 0 with input as one({"valid_name": false})
	variables.pahole_reason[1] == "invalid_name" with input as with_features({"valid_name": false}, {"encode_force": true})
	variables.pahole_reason[1] == "void_type" with input as with_features({"void_type": true, "size": 0}, {"encode_force": true})
}

test_sizes if {
	reason({"size": 0}) == "zero_size"
	reason({"size": 4294967296}) == "zero_size"
	count(variables.pahole_reason) == 0 with input as one({"size": 4294967295})
	reason({"offset": 4294967296}) == "far_offset"
}
