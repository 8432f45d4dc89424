package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

test_uncertain_location_skips if {
	functions.skip.uncertain_location == {1: {"uncertain parameter location"}} with input as one({"uncertain_loc": true})
	decision.left_out == {1} with input as one({"uncertain_loc": true})
}

test_uncertain_location_ignores_clean_functions if {
	functions.skip.uncertain_location == {} with input as batch({1: {}, 2: {"uncertain_loc": false}})
	count(decision.left_out) == 0 with input as one({})
}

test_uncertain_location_not_with_true_signature if {
	given := with_features({"uncertain_loc": true, "true_sig": {"true_sym": "f.isra.0"}}, {"true_signature": true})
	functions.skip.uncertain_location == {} with input as given
}

test_uncertain_location_without_a_true_signature_instance if {
	given := with_features({"uncertain_loc": true}, {"true_signature": true})
	functions.skip.uncertain_location[1] with input as given
}
