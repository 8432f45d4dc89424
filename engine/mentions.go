package engine

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// stringConstants lists every string constant of the modules, sorted and
// without repeats: the keys that refs like f.canonical.optimized_skip or
// object.get(f, "x", d) name.
func stringConstants(modules []*ast.Module) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range modules {
		ast.WalkTerms(m, func(t *ast.Term) bool {
			if s, ok := t.Value.(ast.String); ok && !seen[string(s)] {
				seen[string(s)] = true
				out = append(out, string(s))
			}
			return false
		})
	}
	slices.Sort(out)
	return out
}

// mentionsOf reports whether a name is among the string constants of the
// modules (stringConstants): the input builder passes a fact only if its
// name is among them.
func mentionsOf(constants []string) func(string) bool {
	seen := make(map[string]bool, len(constants))
	for _, s := range constants {
		seen[s] = true
	}
	return func(name string) bool { return seen[name] }
}
