package engine

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// functionFacts are the keys of a function's facts in input.functions:
// facts.Function's JSON names.
func functionFacts() []string {
	var out []string
	for f := range reflect.TypeFor[facts.Function]().Fields() {
		if k, _, _ := strings.Cut(f.Tag.Get("json"), ","); k != "" && k != "-" {
			out = append(out, k)
		}
	}
	return out
}

// lintModules finds what in the user's modules (those named in user)
// does nothing: a fact name that no function fact has
// (input.functions[id].nmae, or f.nmae for f bound to an element of
// input.functions), and a module that defines no rule document of
// package btfgate.functions when no other module reads its package. Each
// warning names the module and line.
func lintModules(parsed []*ast.Module, user map[string]bool) []string {
	known := functionFacts()
	var out []string
	for _, m := range parsed {
		file := m.Package.Location.File
		if !user[file] {
			continue
		}
		for _, r := range m.Rules {
			out = append(out, unknownFacts(r, known)...)
		}
		if msg := noRules(m, parsed); msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

// unknownFacts checks the function fact names rule r reads.
func unknownFacts(r *ast.Rule, known []string) []string {
	functions := ast.MustParseRef("input.functions")
	bound := map[ast.Var]bool{} // vars holding one function's facts
	bindsElement := func(v *ast.Term, of *ast.Term) {
		if ref, ok := of.Value.(ast.Ref); ok && ref.Equal(functions) {
			if x, ok := v.Value.(ast.Var); ok {
				bound[x] = true
			}
		}
	}
	ast.WalkExprs(r, func(e *ast.Expr) bool {
		switch {
		case e.IsAssignment() || e.IsEquality():
			ts := e.Operands()
			if len(ts) == 2 {
				if ref, ok := ts[1].Value.(ast.Ref); ok && len(ref) == 3 && ref[:2].Equal(functions) {
					if x, ok := ts[0].Value.(ast.Var); ok {
						bound[x] = true
					}
				}
			}
		}
		if decl, ok := e.Terms.(*ast.SomeDecl); ok {
			for _, s := range decl.Symbols {
				if call, ok := s.Value.(ast.Call); ok && len(call) == 4 && call[0].Value.Compare(ast.MemberWithKey.Ref()) == 0 {
					bindsElement(call[2], call[3])
				}
			}
		}
		return false
	})
	var out []string
	seen := map[string]bool{}
	check := func(key *ast.Term) {
		s, ok := key.Value.(ast.String)
		if !ok || slices.Contains(known, string(s)) {
			return
		}
		where := "policy"
		if key.Location != nil {
			where = fmt.Sprintf("%s:%d", key.Location.File, key.Location.Row)
		}
		msg := fmt.Sprintf("%s: no function fact is named %q", where, string(s))
		if near := nearestName(string(s), known); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		if !seen[msg] {
			seen[msg] = true
			out = append(out, msg+": it is always undefined")
		}
	}
	ast.WalkRefs(r, func(ref ast.Ref) bool {
		switch {
		case len(ref) >= 4 && ref[:2].Equal(functions):
			check(ref[3])
		case len(ref) >= 2:
			if x, ok := ref[0].Value.(ast.Var); ok && bound[x] {
				check(ref[1])
			}
		}
		return false
	})
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

// nearestName is the name closest to s within a third of its length in
// edits (two at least: a transposition), "" if none is.
func nearestName(s string, names []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, n := range names {
		if d := levenshtein.ComputeDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
