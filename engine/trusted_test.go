package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestTrustedCompile is what lets New skip checkOnlyStages and the fact
// reference check for the embedded set alone (with and without its rule
// families, with and without print statements): compiled with every
// stage, the set has no error, and its compiled modules read the same
// with and without the skipped stages; its fact references have no
// problem and no computed key.
func TestTrustedCompile(t *testing.T) {
	for _, noDefault := range []bool{false, true} {
		modules, err := loadModules(Config{NoDefault: noDefault})
		if err != nil {
			t.Fatal(err)
		}
		caps, forbidden := sandbox()
		parsed, err := parseModules(modules, caps, forbidden)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*ast.Module{}
		for _, m := range parsed {
			byName[m.Package.Location.File] = m
		}
		for _, print := range []bool{false, true} {
			full := newCompiler(caps, print, false)
			if full.Compile(byName); full.Failed() {
				t.Fatalf("NoDefault %v: the embedded set fails to compile: %v", noDefault, full.Errors)
			}
			trusted := newCompiler(caps, print, true)
			if trusted.Compile(byName); trusted.Failed() {
				t.Fatalf("NoDefault %v: trusted compile: %v", noDefault, trusted.Errors)
			}
			if len(full.Modules) != len(modules) || len(trusted.Modules) != len(modules) {
				t.Fatalf("compiled %d and %d modules, want %d", len(full.Modules), len(trusted.Modules), len(modules))
			}
			for name, m := range full.Modules {
				if got, want := trusted.Modules[name].String(), m.String(); got != want {
					t.Errorf("NoDefault %v, print %v: %s compiles to\n%s\nwithout the check stages, to\n%s\nwith them", noDefault, print, name, got, want)
				}
			}
		}
		refs, err := checkFactRefs(parsed)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs.problems) > 0 || refs.computed {
			t.Errorf("NoDefault %v: fact references: problems %v, computed key %v; New skips the check for this set", noDefault, refs.problems, refs.computed)
		}
	}
}

// TestUserModulesGetEveryStage gives New a user module failing each
// stage that the embedded set skips: each is refused as before.
func TestUserModulesGetEveryStage(t *testing.T) {
	const head = "package btfgate.functions\n\n"
	tests := []struct {
		stage ast.StageID
		src   string
		want  string
	}{
		{ast.StageCheckTypes, head + "skip.x[id] contains \"m\" if {\n\tinput.functions[id].name == \"f\"\n\t1 + \"a\" > 0\n}\n", "bad.rego:5:2: plus: invalid argument(s)"},
		{ast.StageCheckRecursion, head + "p if q\n\nq if p\n", "bad.rego:3:1: rule data.btfgate.functions.p is recursive"},
		{ast.StageCheckRuleConflicts, head + "f(x) := 1\n\nf := 2\n", "bad.rego:3:1: conflicting rules data.btfgate.functions.f found"},
		{ast.StageCheckUndefinedFuncs, head + "skip.x[id] contains \"m\" if {\n\tnot_a_builtin(input.functions[id])\n}\n", "bad.rego:4:2: undefined function not_a_builtin"},
		{ast.StageCheckSafetyRuleHeads, head + "skip.x[id] contains msg if {\n\tinput.functions[id].reordered\n}\n", "bad.rego:3:21: var msg is unsafe"},
		{ast.StageCheckKeywordOverrides, head + "p if {\n\tinput := 1\n}\n", "bad.rego:4:2: variables must not shadow input"},
		{ast.StageCheckDuplicateImports, head + "import data.a\nimport data.a\n\np := a\n", "bad.rego:4:1: import must not shadow import data.a"},
	}
	for _, tc := range tests {
		t.Run(string(tc.stage), func(t *testing.T) {
			_, err := New(context.Background(), Config{Modules: []Module{{Name: "bad.rego", Source: tc.src}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}
