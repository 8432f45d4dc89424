# Helpers for the policy tests: inputs holding functions with chosen flags.
package btfgate.functions_test

# A function none of pahole's rules skip.
clean := {
	"id": 1,
	"name": "f",
	"ambiguous_addr": false,
	"unexpected_reg": false,
	"uncertain_loc": false,
	"reordered": false,
	"inconsistent": false,
	"mismatch": "",
	"canonical": {"optimized_skip": false},
	"true_sig": null,
}

# pahole's --btf_features=default, as far as the rules care.
default_features := {"consistent_func": true, "true_signature": false}

# An input holding function 1 with the given facts over clean's.
one(facts) := with_features(facts, {})

# The same, with features changed from default_features.
with_features(facts, features) := {
	"features": object.union(default_features, features),
	"functions": {1: object.union(clean, facts)},
}

# An input holding several functions: a map from id to facts.
batch(by_id) := {
	"features": default_features,
	"functions": {id: object.union(object.union(clean, {"id": id}), facts) | some id, facts in by_id},
}
