package engine

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/features"
)

// featureFlags lists every feature under pahole's name, as policies see
// it in input.features.
func featureFlags(s features.Set) []struct {
	name string
	on   bool
} {
	return []struct {
		name string
		on   bool
	}{
		{"encode_force", s.EncodeForce},
		{"var", s.Var},
		{"float", s.Float},
		{"decl_tag", s.DeclTag},
		{"type_tag", s.TypeTag},
		{"enum64", s.Enum64},
		{"optimized_func", s.OptimizedFunc},
		{"consistent_func", s.ConsistentFunc},
		{"decl_tag_kfuncs", s.DeclTagKfuncs},
		{"reproducible_build", s.ReproducibleBuild},
		{"distilled_base", s.DistilledBase},
		{"global_var", s.GlobalVar},
		{"attributes", s.Attributes},
		{"true_signature", s.TrueSignature},
		{"layout", s.Layout},
	}
}

// featuresTerm is input.features: every feature name mapped to whether it
// is on.
func featuresTerm(s features.Set) *ast.Term {
	flags := featureFlags(s)
	obj := ast.NewObjectWithCapacity(len(flags))
	for _, f := range flags {
		obj.Insert(ast.StringTerm(f.name), ast.InternedTerm(f.on))
	}
	return ast.NewTerm(obj)
}
