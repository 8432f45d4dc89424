package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/facts"
)

func TestSelectTrueSignatureNeedsRules(t *testing.T) {
	for name, cfg := range map[string]Config{
		"defaults":            defaults(),
		"empty list":          {Data: map[string]any{"true_signature": []any{}}},
		"list without rules":  {NoDefault: true, Data: map[string]any{"true_signature": []any{"f"}}},
		"other rules":         {Modules: []Module{{Name: "x.rego", Source: "package btfgate.functions\n\nskip.x := {id: {\"x\"} | input.functions[id].kfunc}\n"}}},
		"other package rules": {Modules: []Module{{Name: "y.rego", Source: "package other\n\ntrue_signature := 1\n"}}},
	} {
		e := newEngine(t, cfg)
		if e.SelectsTrueSignature() {
			t.Errorf("%s: selects true signatures", name)
		}
		sel, err := e.SelectTrueSignature(context.Background(), []facts.Function{fn(1, "f", nil)}, 1)
		if err != nil || sel != nil {
			t.Errorf("%s: %v, %v; want nothing", name, sel, err)
		}
	}
}

func TestSelectTrueSignature(t *testing.T) {
	mod := Module{Name: "sel.rego", Source: `package btfgate.functions

true_signature.mine := {id: {"traced by clone"} | startswith(input.functions[id].name, "bpf_")}

# Selection may read the other documents: they are decided on the same
# facts first.
true_signature.skipped[id] contains "skipped" if some id, _ in skip.ambiguous_address
`}
	cfg := defaults()
	cfg.Modules = []Module{mod}
	cfg.Data = map[string]any{"true_signature": []any{map[string]any{"name": "bpf_a", "reason": "listed"}, "c*"}}
	e := newEngine(t, cfg)
	if !e.SelectsTrueSignature() {
		t.Fatal("does not select true signatures")
	}
	fns := []facts.Function{
		fn(1, "bpf_a", nil),
		fn(2, "bpf_b", func(f *facts.Function) { f.AmbiguousAddr = true }),
		fn(3, "c", nil),
		fn(4, "d", nil),
		fn(5, "e", func(f *facts.Function) { f.AmbiguousAddr = true }),
	}
	smallBatches(e) // a batch per worker
	for _, jobs := range []int{1, 2, 5} {
		sel, err := e.SelectTrueSignature(context.Background(), fns, jobs)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(sel))
		for i, rs := range sel {
			var parts []string
			for _, r := range rs {
				parts = append(parts, r.Rule+"="+r.Message+"@"+r.Module)
			}
			got[i] = strings.Join(parts, " ")
		}
		want := []string{
			"config_true_signature=listed@config_lists.rego mine=traced by clone@sel.rego",
			"mine=traced by clone@sel.rego skipped=skipped@sel.rego",
			"config_true_signature=true signature by configuration (c*)@config_lists.rego",
			"",
			"skipped=skipped@sel.rego",
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("jobs %d: %s: %q, want %q", jobs, fns[i].Name, got[i], want[i])
			}
		}
	}
}

func TestSelectTrueSignatureOnlyFromConfig(t *testing.T) {
	e := newEngine(t, Config{Data: map[string]any{"true_signature": []any{"f*"}}})
	sel, err := e.SelectTrueSignature(context.Background(), []facts.Function{fn(1, "f1", nil), fn(2, "g", nil)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel) != 2 || len(sel[0]) != 1 || sel[1] != nil {
		t.Fatalf("selected %v, want f1 only", sel)
	}
}

func TestSelectTrueSignatureMalformed(t *testing.T) {
	e := newEngine(t, Config{Modules: []Module{{Name: "bad.rego", Source: `package btfgate.functions

true_signature.flat := {id: "x" | input.functions[id]}
`}}})
	_, err := e.SelectTrueSignature(context.Background(), []facts.Function{fn(1, "f", nil)}, 1)
	if err == nil || !strings.Contains(err.Error(), "true_signature.flat (bad.rego): entry for 1 (f) is string, want a set") {
		t.Fatalf("error %v, want the malformed entry named", err)
	}
}

func TestTrueSignatureListChecked(t *testing.T) {
	_, err := New(context.Background(), Config{Data: map[string]any{"true_signature": []any{"f[*"}}})
	if err == nil || !strings.Contains(err.Error(), `data.btfgate.config.true_signature[0]: bad glob "f[*"`) {
		t.Fatalf("error %v, want the bad glob named", err)
	}
}
