package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokenPolicyReportedFirst: policies compile beside the read of the
// input (engine.Start), but a policy that does not compile is still the
// error, named by file and line, whether the input is good or broken too,
// and no output is written; for encode, explain and the pahole front end.
func TestBrokenPolicyReportedFirst(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "broken.rego")
	if err := os.WriteFile(pol, []byte("package btfgate.rules.broken\n\nexclude contains x if {\n\tx :=\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(rules, []byte("policies: ["+pol+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badInput := truncatedFixture(t, dir)
	out := filepath.Join(dir, "out", "out.btf")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{fixture, badInput} {
		for _, args := range [][]string{
			{"encode", "--policy", pol, "-o", out, input},
			{"explain", "--policy", pol, input, "f"},
			{"pahole", "-J", "--btf_encode_detached=" + out, "--btfgate-rules", rules, input},
		} {
			_, _, err := run(t, args...)
			if err == nil || !strings.Contains(err.Error(), pol+":5:") {
				t.Errorf("%s on %s: error %v, want the policy's, naming %s:5", args[0], filepath.Base(input), err, pol)
			}
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("failed runs left %d entries in the output directory", len(entries))
	}
}
