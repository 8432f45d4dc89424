package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

optimized := {"canonical": {"optimized_skip": true}}

test_optimized_parameters_skips if {
	functions.skip.optimized_parameters == {1: {"optimized parameters"}} with input as one(optimized)
	decision.left_out == {1} with input as one(optimized)
}

test_optimized_parameters_reads_the_canonical_instance_only if {
	# The loader folds optimized_parms and signature_changed into
	# optimized_skip; the rule does not second-guess it.
	given := one({"canonical": {"optimized_skip": false, "optimized_parms": true, "signature_changed": true}})
	functions.skip.optimized_parameters == {} with input as given
}

test_optimized_parameters_not_with_true_signature if {
	given := with_features(object.union(optimized, {"true_sig": {"true_sym": "f.constprop.0"}}), {"true_signature": true})
	functions.skip.optimized_parameters == {} with input as given
}
