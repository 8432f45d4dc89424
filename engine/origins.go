package engine

import (
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// ruleKinds are the documents of package btfgate.functions that decisions
// are assembled from.
func ruleKinds() []string { return []string{"skip", "exclude", "keep", "annotate"} }

// allKinds are every rule document of package btfgate.functions: the
// deciding ones and deny, which judges their outcome.
func allKinds() []string { return append(ruleKinds(), "deny", "true_signature") }

// ruleOrigins maps "kind.rule" to the modules defining that rule, for
// Reason.Module. Rules whose name is computed (skip[name][id]) cannot be
// attributed and get no entry.
func ruleOrigins(modules []*ast.Module) map[string]string {
	return packageRuleOrigins(modules, "functions")
}

// packageRuleOrigins is ruleOrigins for the rules of package
// btfgate.NAME.
func packageRuleOrigins(modules []*ast.Module, name string) map[string]string {
	pkg := ast.Ref{ast.DefaultRootDocument, ast.InternedTerm("btfgate"), ast.InternedTerm(name)}
	byRule := map[string][]string{}
	for _, m := range modules {
		if !m.Package.Path.Equal(pkg) {
			continue
		}
		for _, r := range m.Rules {
			ref := r.Head.Ref()
			if len(ref) < 2 {
				continue
			}
			kind, ok := ref[0].Value.(ast.Var)
			if !ok || !slices.Contains(allKinds(), string(kind)) {
				continue
			}
			name, ok := ref[1].Value.(ast.String)
			if !ok {
				continue
			}
			key := string(kind) + "." + string(name)
			file := m.Package.Location.File // the parser sets both locations
			if r.Location != nil {
				file = r.Location.File
			}
			if !slices.Contains(byRule[key], file) {
				byRule[key] = append(byRule[key], file)
			}
		}
	}
	out := make(map[string]string, len(byRule))
	for key, files := range byRule {
		out[key] = strings.Join(files, ", ")
	}
	return out
}
