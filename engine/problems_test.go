package engine

import (
	"context"
	"fmt"
	"slices"
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

// TestOutcomeAgreesWithLeftOut: the outcome the engine derives from the
// documents (namedBy) is decision.rego's left_out and conflicts (and
// variables/decision.rego's, with pahole's reasons), for rules of every
// kind naming functions alone and together, empty entries included.
func TestOutcomeAgreesWithLeftOut(t *testing.T) {
	// Each member's name says which rules name it: s skip, e exclude, k
	// keep, a annotate, z an empty skip entry, n an empty keep entry; a
	// third of them pahole leaves out too.
	rules := `skip.s := {id: {"s"} | some id, x in input.MEMBERS; contains(x.name, "s")}
skip.z := {id: set() | some id, x in input.MEMBERS; contains(x.name, "z")}
exclude.e := {id: {"e"} | some id, x in input.MEMBERS; contains(x.name, "e")}
keep.k := {id: {"k"} | some id, x in input.MEMBERS; contains(x.name, "k")}
keep.n := {id: set() | some id, x in input.MEMBERS; contains(x.name, "n")}
annotate.a := {id: {"a"} | some id, x in input.MEMBERS; contains(x.name, "a")}
`
	outcomes := []string{"-", "s", "z", "e", "k", "n", "a", "sk", "zk", "sn", "zn", "se", "sa", "ska", "ea", "ez", "sza"}
	conflicts := []string{"ek", "sek", "en", "ekn", "eka"}
	for _, kind := range []struct{ pkg, members, query string }{
		{"functions", "functions", "data.btfgate.decision.result"},
		{"variables", "variables", "data.btfgate.variable_decision.result"},
	} {
		t.Run(kind.pkg, func(t *testing.T) {
			src := "package btfgate." + kind.pkg + "\n\n" + strings.ReplaceAll(rules, "MEMBERS", kind.members)
			e := newEngine(t, Config{Features: defaults().Features, Modules: []Module{{Name: "user.rego", Source: src}},
				Data: map[string]any{"allow_hiding_btf_ids": true}})
			for _, names := range [][]string{outcomes, append(slices.Clone(outcomes), conflicts...)} {
				var input ast.Value
				var ds []Decision
				var err error
				if kind.pkg == "functions" {
					var fns []facts.Function
					for i, n := range names {
						fns = append(fns, fn(i+1, n, func(f *facts.Function) { f.Reordered = i%3 == 0 }))
					}
					input = e.input.input(e.features, fns, nil, newBatchTerms())
					ds, err = e.DecideFunctions(context.Background(), fns, 1)
				} else {
					var vars []facts.Variable
					for i, n := range names {
						vars = append(vars, variable(i+1, n, func(v *facts.Variable) {
							if i%3 == 0 {
								inData(v)
							}
						}))
					}
					input = e.input.variableInput(e.features, vars, newBatchTerms())
					ds, err = e.DecideVariables(context.Background(), vars, 1)
				}
				q, qerr := prepareQuery(e.query.compiler, e.query.store, kind.query, false, nil, true)
				if qerr != nil {
					t.Fatal(qerr)
				}
				result, qerr := q.eval(context.Background(), evalOptions{input: input})
				if qerr != nil || result == nil {
					t.Fatalf("%s: %v, %v", kind.query, result, qerr)
				}
				obj := result.Value.(ast.Object)
				want := field(obj, "conflicts").(ast.Set)
				if want.Len() == 0 {
					if err != nil {
						t.Fatal(err)
					}
					leftOut := field(obj, "left_out").(ast.Set)
					for i, d := range ds {
						if out := leftOut.Contains(ast.InternedTerm(i + 1)); d.Include == out {
							t.Errorf("%s: include %v, left_out %v", names[i], d.Include, out)
						}
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf(": %d function(s) both kept and excluded", want.Len())) {
					t.Errorf("error %v, want %d conflicts", err, want.Len())
					continue
				}
				for _, c := range want.Slice() {
					id, _ := intValue(c.Value)
					if !strings.Contains(err.Error(), "\n  "+names[id-1]+" (id ") {
						t.Errorf("error %v does not name %s", err, names[id-1])
					}
				}
			}
		})
	}
}
