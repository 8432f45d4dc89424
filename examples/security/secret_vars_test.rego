package btfgate.variables_test

import data.btfgate.variable_decision as decision
import data.btfgate.variables

secret_config := {"secret_variables": {
	"names": ["crngs", "batched_entropy_*"],
	"types": ["struct fast_pool"],
}}

percpu(id, name, type) := {
	"id": id, "name": name, "type": type, "section": ".data..percpu", "percpu": true,
	"addr": 4096 * id, "offset": 4096 * id, "size": 64, "void_type": false, "valid_name": true,
	"name_filtered": false, "external": false, "in_symtab": true, "cu": 0, "die": id, "pahole_skip": "",
}

given(features) := {
	"features": object.union({"var": true, "global_var": false, "encode_force": true, "decl_tag": true}, features),
	"variables": {
		1: percpu(1, "crngs", "struct crng"),
		2: percpu(2, "batched_entropy_u64", "struct batch_u64"),
		3: percpu(3, "irq_randomness", "struct fast_pool"),
		4: percpu(4, "runqueues", "struct rq"),
		# pahole leaves it out: no VAR to hide
		5: object.union(percpu(5, "crngs", "struct crng"), {"section": ".data", "percpu": false, "pahole_skip": "section_not_encoded"}),
	},
}

test_secret_variables_excluded if {
	decision.left_out == {1, 2, 3, 5} with input as given({}) with data.btfgate.config as secret_config
	decision.excluded == {1, 2, 3} with input as given({}) with data.btfgate.config as secret_config
	variables.exclude.secret_variables[3] == {"secret variable (type struct fast_pool matches struct fast_pool)"} with input as given({})
		with data.btfgate.config as secret_config
	cfg := {"secret_variables": {"names": ["crngs"], "types": ["struct crng"]}}
	variables.exclude.secret_variables[1] == {
		"secret variable (name crngs matches crngs)",
		"secret variable (type struct crng matches struct crng)",
	} with input as given({})
		with data.btfgate.config as cfg
}

test_nothing_secret_without_configuration if {
	count(decision.excluded) == 0 with input as given({})
}

test_annotate_mode_tags if {
	cfg := {"secret_variables": object.union(secret_config.secret_variables, {"mode": "annotate"})}
	count(decision.excluded) == 0 with input as given({}) with data.btfgate.config as cfg
	variables.annotate.secret_variables == {1: {"btfgate:secret"}, 2: {"btfgate:secret"}, 3: {"btfgate:secret"}} with input as given({})
		with data.btfgate.config as cfg
	count(decision.deny) == 0 with input as given({}) with data.btfgate.config as cfg
}

test_annotate_mode_without_decl_tag_is_refused if {
	cfg := {"secret_variables": object.union(secret_config.secret_variables, {"mode": "annotate"})}
	count(decision.deny.secret_variables_untagged) == 3 with input as given({"decl_tag": false}) with data.btfgate.config as cfg
}

test_unknown_mode_is_refused if {
	cfg := {"secret_variables": object.union(secret_config.secret_variables, {"mode": "hide"})}
	count(decision.deny.secret_variables_mode) == 3 with input as given({}) with data.btfgate.config as cfg
}
