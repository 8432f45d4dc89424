package engine

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/features"
)

// featuresTerm is input.features: every feature name mapped to whether it
// is on.
func featuresTerm(s features.Set) *ast.Term {
	flags := s.Flags()
	obj := ast.NewObjectWithCapacity(len(flags))
	for _, f := range flags {
		obj.Insert(ast.StringTerm(f.Name), ast.InternedTerm(f.On))
	}
	return ast.NewTerm(obj)
}
