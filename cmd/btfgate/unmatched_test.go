package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListEntriesMatchingNothing: a misspelt keep entry and a glob that
// matches nothing are warnings naming the rules file line (with a "did you
// mean" for the misspelling) in encode's summary and in facts; --strict
// makes them an error and nothing is written.
func TestListEntriesMatchingNothing(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "r.yaml")
	src := "data:\n  keep:\n    - fn_driver\n    - fn_struct_by_valu\n  deny:\n    - \"*_debugfz_*\"\n"
	if err := os.WriteFile(rules, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.btf")
	wants := []string{
		rules + `:4: data.btfgate.config.keep[1] "fn_struct_by_valu" matches no function (did you mean "fn_struct_by_value"?)`,
		rules + `:6: data.btfgate.config.deny[0] "*_debugfz_*" matches no function`,
	}
	_, stderr, err := run(t, "encode", "--rules", rules, "-o", out, fixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(stderr, w) {
			t.Errorf("encode's stderr lacks %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "fn_driver\"") {
		t.Errorf("a matching entry is reported:\n%s", stderr)
	}
	_, stderr, err = run(t, "facts", "--rules", rules, "-o", filepath.Join(dir, "f.ndjson"), fixture)
	if err != nil || !strings.Contains(stderr, wants[0]) {
		t.Errorf("facts: %v\n%s", err, stderr)
	}
	os.Remove(out)
	_, _, err = run(t, "encode", "--strict", "--rules", rules, "-o", out, fixture)
	if err == nil || !strings.Contains(err.Error(), "--strict: 2 list entries match no function") || !strings.Contains(err.Error(), wants[1]) {
		t.Errorf("--strict: error %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--strict: output written")
	}
}

// TestPolicyLintWarnings: a module in the wrong package is a warning
// naming the module and line, and an error with --strict (issue 18, "Why"
// 1: it did nothing, exit 0). A fact typo is an error (engine's fact
// reference check).
func TestPolicyLintWarnings(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "wrong.rego")
	src := "package btfgate.function\n\nexclude.typo := {id: {\"x\"} |\n\tsome id, f in input.functions\n\tf.name == \"fn_driver\"\n}\n"
	if err := os.WriteFile(pol, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.btf")
	_, stderr, err := run(t, "encode", "--summary=none", "--policy", pol, "-o", out, fixture)
	want := pol + ":1: package btfgate.function defines no rule"
	if err != nil || !strings.Contains(stderr, "btfgate: warning: "+want) {
		t.Errorf("encode: %v, stderr:\n%s\nwant the warning %q", err, stderr, want)
	}
	_, _, err = run(t, "encode", "--strict", "--policy", pol, "-o", out, fixture)
	if err == nil || !strings.Contains(err.Error(), "--strict: 1 thing in the policy modules does nothing") || !strings.Contains(err.Error(), want) {
		t.Errorf("--strict: %v", err)
	}
	typo := filepath.Join(dir, "typo.rego")
	src = "package btfgate.functions\n\nexclude.typo := {id: {\"x\"} |\n\tsome id, f in input.functions\n\tf.nmae == \"fn_driver\"\n}\n"
	if err := os.WriteFile(typo, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err = run(t, "encode", "--policy", typo, "-o", out, fixture); err == nil || !strings.Contains(err.Error(), typo+":5") || !strings.Contains(err.Error(), "nmae") {
		t.Errorf("fact typo: %v", err)
	}
}
