package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// lintModules finds what in the user's modules (those named in user)
// does nothing: a module that defines no rule document of package
// btfgate.functions when no other module reads its package (a module in
// the wrong package). Each warning names the module and line. A fact name
// no fact has is an error of checkFactRefs, not a warning.
func lintModules(parsed []*ast.Module, user map[string]bool) []string {
	var out []string
	for _, m := range parsed {
		if !user[m.Package.Location.File] {
			continue
		}
		if msg := noRules(m, parsed); msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

// noRules says when module m defines no rule document and no other
// module reads its package, "" otherwise.
func noRules(m *ast.Module, all []*ast.Module) string {
	pkg := ast.Ref{ast.DefaultRootDocument, ast.InternedTerm("btfgate"), ast.InternedTerm("functions")}
	if m.Package.Path.Equal(pkg) {
		for _, r := range m.Rules {
			if k, ok := r.Head.Ref()[0].Value.(ast.Var); ok && slices.Contains(allKinds(), string(k)) {
				return ""
			}
		}
	}
	path := m.Package.Path
	for _, o := range all {
		if o == m {
			continue
		}
		read := false
		ast.WalkRefs(o, func(ref ast.Ref) bool {
			if ref.HasPrefix(path) || path.HasPrefix(ref.ConstantPrefix()) && len(ref.ConstantPrefix()) > 1 {
				read = true
			}
			return read
		})
		for _, imp := range o.Imports {
			if ref, ok := imp.Path.Value.(ast.Ref); ok && (ref.HasPrefix(path) || path.HasPrefix(ref)) {
				read = true
			}
		}
		if read {
			return ""
		}
	}
	return fmt.Sprintf("%s:%d: package %s defines no rule (skip, exclude, keep, annotate, deny or true_signature of package btfgate.functions) and no module reads it: it does nothing",
		m.Package.Location.File, m.Package.Location.Row, strings.TrimPrefix(path.String(), "data."))
}
