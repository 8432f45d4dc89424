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

test_percpu_goes_in if {
	count(decision.left_out) == 0 with input as one({})
}

test_other_sections_need_global_var if {
	data_var := {"section": ".data", "percpu": false}
	variables.skip.section_not_encoded[1] with input as one(data_var)
	decision.left_out == {1} with input as one(data_var)
	count(decision.left_out) == 0 with input as with_features(data_var, {"global_var": true})
}

test_percpu_needs_var if {
	decision.left_out == {1} with input as with_features({}, {"var": false})
}

test_no_section if {
	variables.skip.no_section[1] with input as one({"section": "", "percpu": false})
}

test_no_name if {
	variables.skip.no_name[1] with input as one({"name": ""})
}

test_filtered_names if {
	every name in ["__UNIQUE_ID_x12", "__tpstrtab_sched_switch", "__exitcall_f", "__gendwarfksyms_ptr_f", "__func_stack_frame_non_standard_f"] {
		variables.skip.filtered_name[1] with input as one({"name": name})
	}
	count(variables.skip.filtered_name) == 0 with input as one({"name": "__per_cpu_offset"})
}

test_offset_zero_needs_a_symbol if {
	variables.skip.no_symbol[1] with input as one({"offset": 0, "in_symtab": false})
	count(variables.skip.no_symbol) == 0 with input as one({"offset": 0, "in_symtab": true})
	count(variables.skip.no_symbol) == 0 with input as one({"in_symtab": false})
}

test_invalid_name_and_void_only_with_encode_force if {
	count(decision.left_out) == 0 with input as one({"valid_name": false, "void_type": true, "size": 0})
	variables.skip.invalid_name[1] with input as with_features({"valid_name": false}, {"encode_force": true})
	variables.skip.void_type[1] with input as with_features({"void_type": true, "size": 0}, {"encode_force": true})
}

test_sizes if {
	variables.skip.zero_size[1] with input as one({"size": 0})
	variables.skip.zero_size[1] with input as one({"size": 4294967296})
	count(variables.skip.zero_size) == 0 with input as one({"size": 4294967295})
	variables.skip.far_offset[1] with input as one({"offset": 4294967296})
}
