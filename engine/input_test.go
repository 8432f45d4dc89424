package engine

import (
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

func TestFeatureNamesArePahole(t *testing.T) {
	obj := featuresTerm(features.Set{ConsistentFunc: true}).Value.(ast.Object)
	if v := obj.Get(ast.StringTerm("consistent_func")); v == nil || !v.Equal(ast.BooleanTerm(true)) {
		t.Errorf("consistent_func = %v", v)
	}
	if v := obj.Get(ast.StringTerm("true_signature")); v == nil || !v.Equal(ast.BooleanTerm(false)) {
		t.Errorf("true_signature = %v", v)
	}
	if obj.Len() != len(features.Names()) {
		t.Errorf("input.features has %d names, features has %d", obj.Len(), len(features.Names()))
	}
}

// TestInputHasMentionedFieldsOnly: the input carries the facts policies
// name, under their JSON names, and no others.
func TestInputHasMentionedFieldsOnly(t *testing.T) {
	mentioned := map[string]bool{"name": true, "canonical": true, "params": true, "loc_reg": true,
		"true_sig": true, "addr": true, "symbols": true, "value": true, "kfunc_flags": true}
	b, err := newInputBuilder(func(s string) bool { return mentioned[s] })
	if err != nil {
		t.Fatal(err)
	}
	f := fn(5, "f", func(f *facts.Function) {
		f.KfuncFlags = 8
		f.Canonical.Addr = 0xffffffff81000000
		f.Canonical.Params = []facts.Param{{Name: "a", LocReg: 5}, {Name: "b", LocReg: -1}}
	})
	in := b.input(ast.ObjectTerm(), []facts.Function{f}, nil, newBatchTerms())
	got := in.(ast.Object).Get(ast.StringTerm("functions")).Value.(ast.Object).Get(ast.IntNumberTerm(5))
	want := ast.MustParseTerm(`{
		"name": "f",
		"kfunc_flags": 8,
		"true_sig": null,
		"symbols": [{"name": "f", "value": 4416}],
		"canonical": {
			"addr": 18446744071578845184,
			"params": [{"name": "a", "loc_reg": 5}, {"name": "b", "loc_reg": -1}],
		},
	}`)
	if got == nil || !got.Equal(want) {
		t.Errorf("function = %v\nwant       %v", got, want)
	}
}

func TestMentionsCoverDefaultRules(t *testing.T) {
	e := newEngine(t, defaults())
	var keys []string
	for _, f := range e.input.function.fields {
		keys = append(keys, f.key.Value.(ast.String).String())
	}
	for _, want := range []string{`"ambiguous_addr"`, `"canonical"`, `"inconsistent"`, `"name"`, `"reordered"`, `"true_sig"`, `"uncertain_loc"`, `"unexpected_reg"`} {
		if !slices.Contains(keys, want) {
			t.Errorf("input lacks %s, which a default rule reads (has %v)", want, keys)
		}
	}
	if slices.Contains(keys, `"symbols"`) {
		t.Errorf("input has symbols, which no default rule reads")
	}
}
