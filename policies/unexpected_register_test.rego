package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

test_unexpected_register_skips if {
	functions.skip.unexpected_register == {1: {"unexpected register usage for parameter"}} with input as one({"unexpected_reg": true})
	decision.left_out == {1} with input as one({"unexpected_reg": true})
}

test_unexpected_register_ignores_clean_functions if {
	functions.skip.unexpected_register == {} with input as batch({1: {}, 2: {"unexpected_reg": false}})
	count(decision.left_out) == 0 with input as one({})
}

test_unexpected_register_not_with_true_signature if {
	given := with_features({"unexpected_reg": true, "true_sig": {"true_sym": "f.isra.0"}}, {"true_signature": true})
	functions.skip.unexpected_register == {} with input as given
}

test_unexpected_register_without_a_true_signature_instance if {
	given := with_features({"unexpected_reg": true}, {"true_signature": true})
	functions.skip.unexpected_register[1] with input as given
}
