package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

test_true_signature_needs_an_instance if {
	functions.emitted_as_true_signature({"true_sig": {"true_sym": "f.isra.0"}}) with input as with_features({}, {"true_signature": true})
	not functions.emitted_as_true_signature({"true_sig": null}) with input as with_features({}, {"true_signature": true})
}

# A true_signature rule selected the group: the encoder filled in true_sig
# although the feature is off.
test_true_signature_selected_without_the_feature if {
	functions.emitted_as_true_signature({"true_sig": {"true_sym": "f.isra.0"}}) with input as one({})
	given := one({"canonical": {"optimized_skip": false}, "ambiguous_addr": true, "true_sig": {"true_sym": "f.isra.0"}})
	count(decision.left_out) == 0 with input as given
}
