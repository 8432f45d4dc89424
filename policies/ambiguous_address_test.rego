package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

test_ambiguous_address_skips if {
	functions.skip.ambiguous_address == {1: {"ambiguous address"}} with input as one({"ambiguous_addr": true})
	decision.left_out == {1} with input as one({"ambiguous_addr": true})
}

test_ambiguous_address_ignores_clean_functions if {
	functions.skip.ambiguous_address == {} with input as batch({1: {}, 2: {"ambiguous_addr": false}})
	count(decision.left_out) == 0 with input as one({})
}

test_ambiguous_address_not_with_true_signature if {
	given := with_features({"ambiguous_addr": true, "true_sig": {"true_sym": "f.isra.0"}}, {"true_signature": true})
	functions.skip.ambiguous_address == {} with input as given
}

test_ambiguous_address_without_a_true_signature_instance if {
	given := with_features({"ambiguous_addr": true}, {"true_signature": true})
	functions.skip.ambiguous_address[1] with input as given
}
