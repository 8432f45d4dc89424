package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyLimitFlags: a policy that spins is stopped by --policy-timeout
// with an error naming the flag, and nothing is written; bad limit values
// are refused.
func TestPolicyLimitFlags(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "spin.rego")
	src := "package btfgate.functions\n\nexclude.spin[id] contains \"never\" if {\n\tsome id, _ in input.functions\n\tcount([x | some a in numbers.range(1, 100000); some b in numbers.range(1, 100000); x := a * b]) < 0\n}\n"
	if err := os.WriteFile(pol, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.btf")
	// The comprehension grows too: the default memory limit would stop it
	// first, so it is raised to see the timeout.
	_, _, err := run(t, "encode", "--policy", pol, "--policy-timeout", "1s", "--policy-memory", "1GiB", "-o", out, fixture)
	if err == nil || !strings.Contains(err.Error(), "--policy-timeout") {
		t.Fatalf("error %v, want the time limit named", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written")
	}
	for _, args := range [][]string{
		{"--policy-memory", "lots"}, {"--policy-memory", "0"}, {"--policy-timeout", "-1s"},
	} {
		_, _, err := run(t, append([]string{"encode", "-o", out, fixture}, args...)...)
		if err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: error %v, want the flag named", args, err)
		}
	}
	_, _, err = run(t, "encode", "-j", "-5", "-o", out, fixture)
	if err == nil || !strings.Contains(err.Error(), "-j -5") {
		t.Errorf("-j -5: error %v", err)
	}
}

// TestDataErrorsNameTheRulesLine: a rules file whose data the default
// rules cannot read fails naming the file and the line of the entry.
func TestDataErrorsNameTheRulesLine(t *testing.T) {
	dir := t.TempDir()
	rulesPath := filepath.Join(dir, "r.yaml")
	for src, want := range map[string]string{
		"data:\n  deny: 3\n":                    ":2: policy data: data.btfgate.config.deny: want a list",
		"data:\n  keep:\n    - ok_*\n    - 7\n": ":4: policy data: data.btfgate.config.keep[1]",
	} {
		if err := os.WriteFile(rulesPath, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, "encode", "--rules", rulesPath, "-o", filepath.Join(dir, "o.btf"), fixture)
		if err == nil || !strings.Contains(err.Error(), rulesPath+want) {
			t.Errorf("%q: error %v, want %q", src, err, rulesPath+want)
		}
	}
}
