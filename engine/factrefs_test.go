package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

func userModule(src string) Config {
	cfg := defaults()
	cfg.Modules = []Module{{Name: "user.rego", Source: "package btfgate.functions\n\n" + src}}
	return cfg
}

// TestUnknownFactIsAnError: a key no fact has, reached through input,
// a variable, a list member or a function's argument, is an error naming
// the file and line.
func TestUnknownFactIsAnError(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`skip.typo := {id: {"m"} | input.functions[id].nmae == "x"}`,
			`user.rego:3:47: Function has no fact "nmae"`},
		{"skip.typo contains id if {\n\tf := input.functions[id]\n\tf.canonical.optimzed_skip\n}",
			`user.rego:5:14: Instance has no fact "optimzed_skip"`},
		{"skip.typo contains id if {\n\tsome p in input.functions[id].canonical.params\n\tp.loc_regg == 5\n}",
			`user.rego:5:4: Param has no fact "loc_regg"`},
		{"named(f) if f.symbols[_].nmae == \"x\"\n\nskip.typo contains id if named(input.functions[id])",
			`user.rego:3:26: Symbol has no fact "nmae"`},
		{`skip.typo := {id: {"m"} | object.get(input.functions[id], "kfnuc", false)}`,
			`user.rego:3:59: Function has no fact "kfnuc"`},
		{`skip.typo := {id: {"m"} | input.function[id].kfunc}`,
			`user.rego:3:33: input has no "function"`},
	} {
		_, err := New(context.Background(), userModule(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\nerror %v\nwant  %s", c.src, err, c.want)
		}
	}
}

// TestKnownFactsAndUnfollowedRefsPass: refs to real facts, and refs the
// check cannot follow, compile.
func TestKnownFactsAndUnfollowedRefsPass(t *testing.T) {
	for _, src := range []string{
		`skip.ok := {id: {"m"} | input.functions[id].canonical.params[_].loc_reg == 5}`,
		"skip.ok contains id if {\n\tsome id, f in input.functions\n\tf.true_sig.true_sym != \"\"\n}",
		"skip.ok contains id if {\n\tx := data.btfgate.config.whatever\n\tx.nmae\n\tinput.functions[id]\n}",
		`skip.ok := {id: {"m"} | input.features.nmae; input.functions[id]}`,
	} {
		if _, err := New(context.Background(), userModule(src)); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestComputedKeysSeeEveryFact: a rule reading a fact through a computed
// key sees its value; the same rule without the computed key in any
// module is what the mentioned-only input would miss.
func TestComputedKeysSeeEveryFact(t *testing.T) {
	refs := func(src string) *factRefs {
		m, err := ast.ParseModuleWithOpts("user.rego", "package btfgate.functions\n\n"+src, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatal(err)
		}
		r, err := checkFactRefs([]*ast.Module{m})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, src := range []string{
		"skip.c contains id if {\n\tsome k in data.btfgate.config.keys\n\tinput.functions[id][k]\n}",
		`skip.c := {id: {"m"} | count(object.keys(input.functions[id].canonical)) > 0}`,
		"skip.c contains id if {\n\tf := input.functions[id]\n\tjson.marshal(f) != \"\"\n}",
		"skip.c contains id if {\n\tsome v in input.functions[id]\n\tv == true\n}",
	} {
		if !refs(src).computed {
			t.Errorf("%s: not seen as a computed key", src)
		}
	}
	if refs(`skip.c := {id: {"m"} | input.functions[id].kfunc}`).computed {
		t.Errorf("a constant key seen as computed")
	}

	cfg := userModule("skip.computed[id] contains \"m\" if {\n\tsome k in data.btfgate.config.facts\n\tinput.functions[id][k] == true\n}")
	cfg.Data = map[string]any{"facts": []any{"noreturn"}}
	e := newEngine(t, cfg)
	ds := decide(t, e, fn(1, "a", func(f *facts.Function) { f.Noreturn = true }), fn(2, "b", nil))
	if ds[0].Include || !ds[1].Include {
		t.Errorf("computed key on noreturn: include a=%v b=%v, want false true", ds[0].Include, ds[1].Include)
	}
	if !e.Mentions("prototype") || !e.Mentions("params") {
		t.Errorf("with a computed key, the costly facts are not built")
	}
}

// TestDefaultsAndExamplesNameOnlyFacts: the default policies and every
// example module name real facts with constant keys, so they keep the
// mentioned-only input.
func TestDefaultsAndExamplesNameOnlyFacts(t *testing.T) {
	e := newEngine(t, defaults())
	if e.Mentions("prototype") {
		t.Errorf("the default policies are seen to read every fact")
	}
	files, err := filepath.Glob("../examples/*/*.rego")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example modules: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.rego") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg := defaults()
		cfg.Modules = []Module{{Name: f, Source: string(src)}}
		e := newEngine(t, cfg)
		if e.Mentions("prototype") {
			t.Errorf("%s is seen to read every fact", f)
		}
	}
}
