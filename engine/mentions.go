package engine

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// mentions collects every string constant of the modules: the keys that
// refs like f.canonical.optimized_skip or object.get(f, "x", d) name. The
// input builder passes a fact only if its name is among them.
func mentions(modules []*ast.Module) func(string) bool {
	seen := map[string]bool{}
	for _, m := range modules {
		ast.WalkTerms(m, func(t *ast.Term) bool {
			if s, ok := t.Value.(ast.String); ok {
				seen[string(s)] = true
			}
			return false
		})
	}
	return func(name string) bool { return seen[name] }
}
