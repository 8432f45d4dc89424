package engine

import (
	"context"

	"errors"
	"github.com/open-policy-agent/opa/v1/ast"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/facts"
)

// variable is a percpu variable that pahole encodes, changed by edit.
func variable(id int, name string, edit func(*facts.Variable)) facts.Variable {
	v := facts.Variable{ID: id, Name: name, Section: ".data..percpu", Addr: 0x100 + uint64(id)*8, Offset: 0x100 + uint64(id)*8,
		Size: 8, Type: "long", ValidName: true, Percpu: true, InSymtab: true, DIE: uint64(id) * 16}
	if edit != nil {
		edit(&v)
	}
	return v
}

// inData moves v to .data, which pahole encodes only with global_var.
func inData(v *facts.Variable) {
	v.Section, v.Percpu, v.PaholeSkip = ".data", false, facts.VarSkipSection
}

const userVariableRules = `package btfgate.variables

exclude.secrets := {id: {"key material"} |
	some id, v in input.variables
	endswith(v.name, "_key")
}

skip.big := {id: {"too big"} | input.variables[id].size > 64}

keep.wanted := {id: {"wanted"} | input.variables[id].name == "big_but_wanted"}

annotate.percpu := {id: {"percpu"} | input.variables[id].percpu}
`

// sectionMessage is policies/variables/pahole.rego's message for
// section_not_encoded.
const sectionMessage = "section not encoded with these features (var: .data..percpu, global_var: all)"

// TestDecideVariables: pahole's reasons, user exclude, skip, keep and
// annotate, with the same decisions for 1 and 3 workers.
func TestDecideVariables(t *testing.T) {
	e := newEngine(t, Config{Features: defaults().Features, Modules: []Module{{Name: "user.rego", Source: userVariableRules}}})
	vars := []facts.Variable{
		variable(0, "runqueues", nil),
		variable(1, "jiffies", inData),
		variable(2, "__UNIQUE_ID_x", func(v *facts.Variable) { v.NameFiltered, v.PaholeSkip = true, facts.VarSkipFilteredName }),
		variable(3, "tfm_key", nil),
		variable(4, "huge", func(v *facts.Variable) { v.Size = 4096 }),
		variable(5, "big_but_wanted", func(v *facts.Variable) { v.Size = 4096 }),
		variable(6, "empty", func(v *facts.Variable) { v.Size, v.PaholeSkip = 0, facts.VarSkipZeroSize }),
	}
	smallBatches(e) // a batch per worker
	var first []Decision
	for _, jobs := range []int{1, 3} {
		ds, err := e.DecideVariables(context.Background(), vars, jobs)
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			include bool
			final   string
			rules   []string
		}{
			{true, "", nil},
			{false, sectionMessage, []string{"section_not_encoded"}},
			{false, "name filtered (compiler or macro artefact)", []string{"filtered_name"}},
			{false, "", []string{"secrets"}},
			{false, "", []string{"big"}},
			{true, "", []string{"big"}},
			{false, "size 0 or past 4 GiB", []string{"zero_size"}},
		}
		for i, w := range want {
			d := ds[i]
			if d.Include != w.include || d.Final != w.final || !slices.Equal(rules(d.Reasons), w.rules) {
				t.Errorf("jobs %d: %s: include %v final %q reasons %v; want %v %q %v", jobs, d.Name, d.Include, d.Final, rules(d.Reasons), w.include, w.final, w.rules)
			}
		}
		if a := ds[0].Annotations; len(a) != 1 || a[0].Value != "percpu" || a[0].Component != -1 {
			t.Errorf("runqueues: annotations %+v, want percpu", a)
		}
		if len(ds[3].Annotations) != 0 {
			t.Errorf("tfm_key is left out but keeps annotations %+v", ds[3].Annotations)
		}
		if ds[5].Kept[0].Rule != "wanted" || ds[3].Reasons[0].Module != "user.rego" || ds[1].Reasons[0].Message != sectionMessage {
			t.Errorf("kept %+v, reasons %+v %+v", ds[5].Kept, ds[3].Reasons, ds[1].Reasons)
		}
		if first == nil {
			first = ds
		} else if !slices.EqualFunc(first, ds, func(a, b Decision) bool {
			return a.Include == b.Include && a.Final == b.Final && slices.Equal(rules(a.Reasons), rules(b.Reasons))
		}) {
			t.Errorf("decisions differ between 1 and 3 workers")
		}
	}
}

// TestDecideVariablesErrors: deny rules, keep/exclude conflicts and
// malformed documents fail, naming the variable or rule.
func TestDecideVariablesErrors(t *testing.T) {
	vars := []facts.Variable{variable(0, "runqueues", nil), variable(1, "tfm_key", nil)}
	cases := []struct{ name, src, want string }{
		{"deny", `package btfgate.variables
deny.no_keys := {id: {"keys must not be in BTF"} |
	some id, v in input.variables
	endswith(v.name, "_key")
	not data.btfgate.variable_decision.left_out[id]
}`, "tfm_key"},
		{"conflict", `package btfgate.variables
exclude.x := {id: {"x"} | input.variables[id].name == "runqueues"}
keep.y := {id: {"y"} | input.variables[id].name == "runqueues"}`, "both kept and excluded"},
		{"malformed", `package btfgate.variables
skip.bad := {id: "not a set" | input.variables[id]}`, "want a set"},
		{"component", `package btfgate.variables
annotate.bad := {id: {{"value": "x", "component": 0}} | input.variables[id]}`, "a variable's tags have none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEngine(t, Config{Features: defaults().Features, Modules: []Module{{Name: "user.rego", Source: c.src}}})
			ds, err := e.DecideVariables(context.Background(), vars, 2)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			var ve *ViolationsError
			if errors.As(err, &ve) != (ds != nil) {
				t.Errorf("violations %v but decisions %v", ve, ds != nil)
			}
		})
	}
}

// TestVariableInputFollowsTheFacts: a variable's input object has
// exactly facts.Variable's fields, under their JSON names, when every
// field is built, and only the fields policies name otherwise.
func TestVariableInputFollowsTheFacts(t *testing.T) {
	fields, err := facts.Fields(reflect.TypeFor[facts.Variable]())
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range fields {
		want = append(want, f.Name)
	}
	keys := func(keep func(string) bool) []string {
		b, err := newInputBuilder(keep)
		if err != nil {
			t.Fatal(err)
		}
		doc := b.variableInput(ast.BooleanTerm(false), []facts.Variable{variable(7, "x", nil)}, newBatchTerms()).(ast.Object)
		obj := doc.Get(ast.StringTerm("variables")).Value.(ast.Object).Get(ast.IntNumberTerm(7)).Value.(ast.Object)
		var out []string
		for _, k := range obj.Keys() {
			out = append(out, string(k.Value.(ast.String)))
		}
		return out
	}
	slices.Sort(want) // object keys come sorted
	if got := keys(everyField); !slices.Equal(got, want) {
		t.Errorf("input keys %v, facts.Variable's fields %v", got, want)
	}
	if got := keys(func(n string) bool { return n == "pahole_skip" || n == "size" }); !slices.Equal(got, []string{"pahole_skip", "size"}) {
		t.Errorf("input keys %v with size and pahole_skip named", got)
	}
}

// TestEveryPaholeReasonIsRanked: each of facts' reasons for pahole leaving
// a variable out is a final reason with a message of its own.
func TestEveryPaholeReasonIsRanked(t *testing.T) {
	e := newEngine(t, defaults())
	var vars []facts.Variable
	for i, r := range facts.VarSkipReasons() {
		vars = append(vars, variable(i, r, func(v *facts.Variable) { v.PaholeSkip = r }))
	}
	ds, err := e.DecideVariables(context.Background(), vars, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, d := range ds {
		if d.Include || d.Final == "" || seen[d.Final] || len(d.Reasons) != 1 || d.Reasons[0].Rule != vars[i].PaholeSkip {
			t.Errorf("%s: include %v final %q reasons %+v", vars[i].PaholeSkip, d.Include, d.Final, d.Reasons)
		}
		seen[d.Final] = true
	}
}
