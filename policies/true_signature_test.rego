package btfgate.functions_test

import data.btfgate.functions

test_true_signature_needs_the_feature_and_an_instance if {
	functions.emitted_as_true_signature({"true_sig": {"true_sym": "f.isra.0"}}) with input as with_features({}, {"true_signature": true})
	not functions.emitted_as_true_signature({"true_sig": {"true_sym": "f.isra.0"}}) with input as one({})
	not functions.emitted_as_true_signature({"true_sig": null}) with input as with_features({}, {"true_signature": true})
}
