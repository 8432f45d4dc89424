package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// maxProblems is how many rule document mistakes an error spells out.
const maxProblems = 10

// wellFormed reports whether the rule documents of a batch's verdicts
// (each kind's under "documents", and "deny") have the shape the problems
// rule of decision.rego (or variables/decision.rego) wants: each rule's
// document an object, each of its keys a key of the input's members
// (input.functions or input.variables), each entry a set. It tests what
// that rule tests, so that the verdicts query need not (a Go loop over
// the entries instead of three Rego passes): when it returns false the
// engine asks the rule for the problems, and where it is unsure (a value
// that cannot occur) it returns false too.
func wellFormed(verdicts ast.Object, input ast.Value, members string) bool {
	in, _ := input.(ast.Object)
	ids, _ := field(in, members).(ast.Object)
	docs, _ := field(verdicts, "documents").(ast.Object)
	if ids == nil || docs == nil {
		return false
	}
	ok := true
	doc := func(_, d *ast.Term) error {
		rules, isObj := d.Value.(ast.Object)
		if !isObj {
			ok = false
			return errStop
		}
		return rules.Iter(func(_, byID *ast.Term) error {
			entries, isObj := byID.Value.(ast.Object)
			if !isObj {
				ok = false
				return errStop
			}
			return entries.Iter(func(id, v *ast.Term) error {
				if _, isSet := v.Value.(ast.Set); !isSet || ids.Get(id) == nil {
					ok = false
					return errStop
				}
				return nil
			})
		})
	}
	_ = docs.Iter(doc)
	if deny := verdicts.Get(ast.InternedTerm("deny")); ok && deny != nil {
		_ = doc(nil, deny)
	}
	return ok
}

// errStop ends an iteration early.
var errStop = errors.New("stop")

// shapeProblems evaluates q, a problems query, on a batch's input and
// reads its problems; what names the policies in errors.
func (e *Engine) shapeProblems(ctx context.Context, q *preparedQuery, input ast.Value, what string) ([]string, error) {
	result, err := q.eval(ctx, evalOptions{input: input})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, coded(CodeEval, fmt.Errorf("evaluating %s: %w", what, policyErrors(err, nil)))
	}
	if result == nil {
		return nil, coded(CodeInternal, fmt.Errorf("evaluating %s: their problems are undefined", what))
	}
	return e.problems(result.Value), nil
}

// problems reads the mistakes decision.rego found in rule documents (keys
// that are not function ids, entries that are not sets), a set, each as
// "kind.rule (module): problem".
func (e *Engine) problems(v ast.Value) []string {
	set, ok := v.(ast.Set)
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
