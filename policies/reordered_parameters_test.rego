package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

test_reordered_parameters_skips if {
	functions.skip.reordered_parameters == {1: {"reordered parameters"}} with input as one({"reordered": true})
	decision.left_out == {1} with input as one({"reordered": true})
}

test_reordered_parameters_ignores_clean_functions if {
	functions.skip.reordered_parameters == {} with input as batch({1: {}, 2: {"reordered": false}})
	count(decision.left_out) == 0 with input as one({})
}

test_reordered_parameters_not_with_true_signature if {
	given := with_features({"reordered": true, "true_sig": {"true_sym": "f.isra.0"}}, {"true_signature": true})
	functions.skip.reordered_parameters == {} with input as given
}

test_reordered_parameters_without_a_true_signature_instance if {
	given := with_features({"reordered": true}, {"true_signature": true})
	functions.skip.reordered_parameters[1] with input as given
}
