package btfgate.examples.distro_test

import data.btfgate.decision
import data.btfgate.functions

# A batch of functions: {id: facts} over a clean .text function with two
# parameters in their registers.
batch(by_id) := {
	"features": {"consistent_func": true, "true_signature": false},
	"functions": {id: object.union(
		{
			"id": id, "name": sprintf("f%d", [id]), "section": ".text",
			"ambiguous_addr": false, "reordered": false, "unexpected_reg": false,
			"uncertain_loc": false, "inconsistent": false, "true_sig": null,
			"canonical": {"optimized_skip": false, "params": [param("int"), param("long")]},
		},
		facts,
	) |
		some id, facts in by_id
	},
}

param(type) := {"type": type, "has_loc": true, "optimized": false}

lost(type) := {"type": type, "has_loc": false, "optimized": true}

# pahole's "optimized parameters" with these parameters.
optimized(params) := {"canonical": {"optimized_skip": true, "params": params}}

test_keeps_optimized_only_with_lost_parameters_at_the_end if {
	given := batch({
		1: optimized([param("int"), lost("long")]),
		2: optimized([param("int"), lost("long"), lost("struct sk_buff *")]),
		3: {},
	})
	functions.keep.optimized_only == {
		1: {"only optimized parameters, lost at the end of the list"},
		2: {"only optimized parameters, lost at the end of the list"},
	} with input as given
	decision.left_out == set() with input as given
}

test_a_parameter_without_location_counts_as_lost if {
	no_loc := {"type": "int", "has_loc": false, "optimized": false}
	decision.kept_by == {1: {"optimized_only"}} with input as batch({
		1: optimized([param("int"), no_loc]),
		2: optimized([no_loc, param("int")]),
	})
}

test_not_when_a_kept_parameter_follows_a_lost_one if {
	given := batch({1: optimized([lost("int"), param("long")])})
	functions.keep.optimized_only == {} with input as given
	decision.left_out == {1} with input as given
}

test_not_when_another_skip_rule_applies if {
	given := batch({
		1: object.union(optimized([param("int"), lost("long")]), {"reordered": true}),
		2: object.union(optimized([param("int"), lost("long")]), {"ambiguous_addr": true}),
		3: optimized([param("int"), lost("long")]),
	})
	functions.keep.optimized_only == {3: {"only optimized parameters, lost at the end of the list"}} with input as given
	decision.left_out == {1, 2} with input as given
	decision.left_out == {1, 2, 3} with input as given
		with data.btfgate.functions.skip.local as {3: {"mine"}}
}

test_scalar_lost_only_refuses_lost_pointers if {
	given := batch({
		1: optimized([param("int"), lost("long")]),
		2: optimized([param("int"), lost("struct sk_buff *")]),
		3: optimized([param("int"), lost("void (*)(int)")]),
	})
	decision.left_out == {2, 3} with input as given
		with data.btfgate.config.distro as {"scalar_lost_only": true}
}

test_keep_optimized_only_can_be_off if {
	decision.left_out == {1} with input as batch({1: optimized([param("int"), lost("long")])})
		with data.btfgate.config.distro as {"keep_optimized_only": false}
}

drop := {"drop": [
	{"section": ".init.text", "reason": "freed after boot"},
	{"name": "*_debugfs_*"},
	{"section": ".exit.text"},
]}

test_drop_by_section_and_glob if {
	given := batch({
		1: {"section": ".init.text"},
		2: {"name": "blk_debugfs_open"},
		3: {"name": "x_debugfs_init", "section": ".init.text"},
		4: {"section": ".exit.text"},
		5: {"name": "debugfs_create_file"},
	})
	functions.exclude.distro_drop == {
		1: {"freed after boot"},
		2: {"dropped by the distro (*_debugfs_*)"},
		3: {"freed after boot", "dropped by the distro (*_debugfs_*)"},
		4: {"dropped by the distro (section .exit.text)"},
	} with input as given
		with data.btfgate.config.distro as drop
}

# Dropped functions are not kept, so the keep and exclude rules of this
# module never conflict.
test_dropped_functions_are_not_kept if {
	given := batch({1: object.union(optimized([param("int"), lost("long")]), {"section": ".init.text"})})
	r := decision.result with input as given
		with data.btfgate.config.distro as drop
	r.left_out == {1}
	r.conflicts == set()
	not decision.kept_by[1] with input as given
		with data.btfgate.config.distro as drop
}

test_nothing_dropped_by_default if {
	functions.exclude.distro_drop == {} with input as batch({1: {"section": ".init.text"}})
}

# A clone symbol beside the base name's.
with_clone(id) := {"symbols": [{"name": sprintf("f%d.isra.0", [id]), "value": 4096 * id, "section": ".text"}]}

test_clones_select_skipped_functions_with_a_clone if {
	given := batch({
		1: object.union(with_clone(1), {"ambiguous_addr": true}),
		2: object.union(with_clone(2), {"reordered": true, "section": ".init.text"}),
		3: object.union(with_clone(3), optimized([param("int"), lost("long")])),
		4: {"reordered": true},
		5: with_clone(5),
	})
	r := decision.true_signature_result with input as given
		with data.btfgate.config.distro as object.union(drop, {"clones": true})

	# 2 is dropped, 3 kept under its base name by optimized_only, 4 has no
	# clone, 5 goes in anyway.
	r.true_signature == {"distro_clones": {1: {"left out by a skip rule: its clone goes in under its own name"}}}
	r.problems == set()
}

test_clones_off_by_default if {
	not functions.true_signature.distro_clones with input as batch({1: object.union(with_clone(1), {"ambiguous_addr": true})})
}

# Once the encoder gave the selected group its true signature (true_sig),
# pahole's rules no longer skip it.
test_selected_clone_goes_in if {
	given := batch({1: {"ambiguous_addr": true, "true_sig": {"true_sym": "f1.isra.0"}}})
	decision.left_out == set() with input as given
		with data.btfgate.config.distro as {"clones": true}
}
