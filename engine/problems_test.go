package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// TestWellFormedAgreesWithProblems: the engine's check of the documents'
// shapes (wellFormed) passes exactly when decision.rego's problems rule
// (and variables/decision.rego's) finds none, for documents of every
// shape a rule can produce; the whole result, which holds both, is
// evaluated on one batch.
func TestWellFormedAgreesWithProblems(t *testing.T) {
	cases := []struct {
		name, src string
		bad       bool
	}{
		{"none", "", false},
		{"sets by id", `skip.mine := {id: {"x"} | input.MEMBERS[id]}
annotate.mine := {id: {{"value": "v", "component": 0}} | input.MEMBERS[id]}`, false},
		{"empty document", `exclude.mine := {}`, false},
		{"keyed by name", `exclude.by_name[x.name] contains "x" if some x in input.MEMBERS`, true},
		{"keyed by the id as a string", `keep.by_string[sprintf("%d", [id])] contains "x" if some id, _ in input.MEMBERS`, true},
		{"keyed by another id", `skip.other := {99: {"x"}}`, true},
		{"keyed by a float", `skip.float := {1.5: {"x"}}`, true},
		{"entry a string", `skip.single := {id: "x" | input.MEMBERS[id]}`, true},
		{"entry an array", `annotate.list := {id: ["x"] | input.MEMBERS[id]}`, true},
		{"document a set", `keep.flat contains "x" if some _ in input.MEMBERS`, true},
		{"document a string", `skip.text := "x"`, true},
		{"deny entry a string", `deny.single := {id: "x" | input.MEMBERS[id]}`, true},
		{"deny keyed by name", `deny.by_name[x.name] contains "x" if some x in input.MEMBERS`, true},
		{"deny fine", `deny.none := {id: {"x"} | input.MEMBERS[id]; false}`, false},
	}
	fns := []facts.Function{fn(1, "f", nil), fn(2, "g", nil)}
	vars := []facts.Variable{variable(1, "v", nil), variable(2, "w", nil)}
	for _, c := range cases {
		for _, kind := range []struct{ pkg, members, query string }{
			{"functions", "functions", "data.btfgate.decision.result"},
			{"variables", "variables", "data.btfgate.variable_decision.result"},
		} {
			t.Run(c.name+"/"+kind.pkg, func(t *testing.T) {
				cfg := defaults()
				if c.src != "" {
					src := "package btfgate." + kind.pkg + "\n\n" + strings.ReplaceAll(c.src, "MEMBERS", kind.members)
					cfg.Modules = []Module{{Name: "user.rego", Source: src}}
				}
				e := newEngine(t, cfg)
				var input ast.Value
				if kind.pkg == "functions" {
					input = e.input.input(e.features, fns, nil, newBatchTerms())
				} else {
					input = e.input.variableInput(e.features, vars, newBatchTerms())
				}
				q, err := prepareQuery(e.query.compiler, e.query.store, kind.query, false, nil, true)
				if err != nil {
					t.Fatal(err)
				}
				result, err := q.eval(context.Background(), evalOptions{input: input})
				if err != nil || result == nil {
					t.Fatalf("%s: %v, %v", kind.query, result, err)
				}
				obj := result.Value.(ast.Object)
				problems := field(obj, "problems").(ast.Set)
				if got, want := wellFormed(obj, input, kind.members), problems.Len() == 0; got != want {
					t.Errorf("wellFormed = %v, problems %v", got, problems)
				}
				if c.bad != (problems.Len() > 0) {
					t.Errorf("problems %v: the case is not what it says", problems)
				}
			})
		}
	}
}
