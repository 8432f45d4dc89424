package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// maxProblems is how many rule document mistakes an error spells out.
const maxProblems = 10

// problems reads the mistakes decision.rego found in rule documents (keys
// that are not function ids, entries that are not sets), each as
// "kind.rule (module): problem".
func (e *Engine) problems(result ast.Object) []string {
	set, ok := field(result, "problems").(ast.Set)
	if !ok {
		return nil
	}
	var out []string
	for _, t := range set.Slice() {
		obj, ok := t.Value.(ast.Object)
		if !ok {
			out = append(out, t.String())
			continue
		}
		name := text(field(obj, "kind")) + "." + text(field(obj, "rule"))
		if m := e.origins[name]; m != "" {
			name += " (" + m + ")"
		}
		out = append(out, name+": "+text(field(obj, "problem")))
	}
	return out
}

// problemsError reports the problems of every batch, if any, in one error.
func problemsError(ps []string) error {
	if len(ps) == 0 {
		return nil
	}
	slices.Sort(ps)
	ps = slices.Compact(ps)
	var b strings.Builder
	fmt.Fprintf(&b, "policy rules: %d malformed entr(ies)", len(ps))
	for i, p := range ps {
		if i == maxProblems {
			fmt.Fprintf(&b, "\n  ... and %d more", len(ps)-maxProblems)
			break
		}
		b.WriteString("\n  " + p)
	}
	return coded(CodeDocument, errors.New(b.String()))
}
