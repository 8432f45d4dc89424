package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

inconsistent := {"inconsistent": true, "mismatch": "param count mismatch; 2 params != 3 params"}

test_inconsistent_prototype_skips_with_consistent_func if {
	functions.skip.inconsistent_prototype == {1: {"inconsistet prototype"}} with input as one(inconsistent)
	decision.left_out == {1} with input as one(inconsistent)
}

test_inconsistent_prototype_kept_without_consistent_func if {
	given := with_features(inconsistent, {"consistent_func": false})
	functions.skip.inconsistent_prototype == {} with input as given
	count(decision.left_out) == 0 with input as given
}

test_inconsistent_prototype_not_with_true_signature if {
	given := with_features(object.union(inconsistent, {"true_sig": {"true_sym": "f.isra.0"}}), {"true_signature": true})
	functions.skip.inconsistent_prototype == {} with input as given
}
