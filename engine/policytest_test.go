package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const userRule = `package btfgate.functions

exclude.no_bpf[id] contains "no bpf" if startswith(input.functions[id].name, "bpf_")
`

const userTests = `package user_test

import data.btfgate.decision

test_excludes_bpf if {
	out := decision.left_out with input as {"features": {}, "functions": {1: {"name": "bpf_x", "true_sig": null, "canonical": {}}}}
	out == {1}
}

test_wrong if {
	out := decision.left_out with input as {"features": {}, "functions": {1: {"name": "bpf_x", "true_sig": null, "canonical": {}}}}
	print("left out", out)
	count(out) == 0
}

todo_test_later if false
`

func TestRunTestsWithUserPolicies(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "rules/no_bpf.rego", userRule)
	write(t, dir, "rules/no_bpf_test.rego", userTests)
	write(t, dir, "rules/README.md", "not a policy")
	results, err := RunTests(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]TestResult{}
	var defaults int
	for _, r := range results {
		byName[r.Name] = r
		if !strings.HasPrefix(r.File, dir) {
			defaults++
			if !r.Pass {
				t.Errorf("default test %s failed: %s", r.Name, r.Failure)
			}
		}
	}
	if defaults == 0 {
		t.Error("the default set's tests did not run")
	}
	if r := byName["data.user_test.test_excludes_bpf"]; !r.Pass {
		t.Errorf("test_excludes_bpf: %+v", r)
	}
	r := byName["data.user_test.test_wrong"]
	if r.Pass || !strings.HasSuffix(r.Failure, "no_bpf_test.rego:13: false: count(out) == 0") || !strings.Contains(r.Output, "left out {1}") || r.Line != 10 {
		t.Errorf("test_wrong: %+v, want a failure with its print output, at line 10", r)
	}
	if r := byName["data.user_test.todo_test_later"]; !r.Skipped || r.Pass {
		t.Errorf("todo_test_later: %+v, want skipped", r)
	}
}

func TestRunTestsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad_test.rego", "package p\n\ntest_x if {\n")
	if _, err := RunTests(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "bad_test.rego:4") {
		t.Errorf("syntax error: err = %v", err)
	}
	if _, err := RunTests(context.Background(), filepath.Join(dir, "missing")); err == nil {
		t.Error("missing path: no error")
	}
}

// caseTests are tests whose outcome opa test decides beyond "the rule is
// true": tests of one name numbered, tests with cases (a case whose body
// fails after its name is bound fails the test although it has no value),
// values other than true, builtin errors (not strict in tests: the
// expression is false).
const caseTests = `package cases_test

test_dup if true

test_dup if false

test_value := 5

test_cases[note] if {
	some tc in [{"note": "a", "v": 1}, {"note": "b", "v": 2}]
	note := tc.note
	tc.v == 1
}

test_cases_ok[note] if {
	some tc in [{"note": "a", "v": 1}, {"note": "b", "v": 1}]
	note := tc.note
	tc.v == 1
}

test_nested[a][b] if {
	some a in ["x", "y"]
	some b in ["p", "q"]
	not both(a, b)
}

both(a, b) if {
	a == "y"
	b == "q"
}

test_builtin_error if {
	x := to_number("abc")
	x == 1
}
`

func TestRunTestsCases(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "cases_test.rego", caseTests)
	results, err := RunTests(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range results {
		if !strings.HasPrefix(r.File, dir) {
			continue
		}
		switch {
		case r.Pass:
			got[r.Name] = "pass"
		default:
			got[r.Name] = strings.TrimPrefix(r.Failure, filepath.Join(dir, "cases_test.rego")+":")
		}
	}
	want := map[string]string{
		"data.cases_test.test_dup":           "pass",
		"data.cases_test.test_dup#01":        "5: false: false",
		"data.cases_test.test_value":         "failed",
		"data.cases_test.test_cases":         "12: false: tc.v == 1",
		"data.cases_test.test_cases_ok":      "pass",
		"data.cases_test.test_nested":        "24: false: not both(a, b)",
		"data.cases_test.test_builtin_error": "33: false: to_number(\"abc\")",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("results %v, want %d", got, len(want))
	}
}
