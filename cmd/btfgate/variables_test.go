package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVariablesInFactsReportExplainDiff: facts --variables, the report's
// variable lines, explain of a variable (text, JSON, from a report) and
// diff of two reports whose variable decisions differ, on a fixture with
// global_var and a policy hiding base_char.
func TestVariablesInFactsReportExplainDiff(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "hide.rego")
	src := "package btfgate.variables\n\nexclude.hide := {id: {\"hidden\"} | input.variables[id].name == \"base_char\"}\n"
	if err := os.WriteFile(pol, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const feats = "default,global_var"

	out, _, err := run(t, "facts", "--variables", "--features", feats, fixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first struct {
		ID         int    `json:"id"`
		Name       string `json:"name"`
		Section    string `json:"section"`
		PaholeSkip string `json:"pahole_skip"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Name != "base_char" || first.Section != ".bss" || first.PaholeSkip != "" {
		t.Fatalf("first variable fact %+v (%v) of %d", first, err, len(lines))
	}

	plain, hidden := filepath.Join(dir, "plain.ndjson"), filepath.Join(dir, "hidden.ndjson")
	type encode struct {
		report string
		extra  []string
	}
	for _, r := range []encode{{plain, nil}, {hidden, []string{"--policy", pol}}} {
		args := append([]string{"encode", "--summary", "none", "--features", feats, "--report", r.report, "-o", r.report + ".btf"}, r.extra...)
		if _, stderr, err := run(t, append(args, fixture)...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
	}
	data, err := os.ReadFile(hidden)
	if err != nil {
		t.Fatal(err)
	}
	vars, excluded := 0, ""
	// s_empty_var is pahole's: a zero-sized variable
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l varReportLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind != varKind {
			continue
		}
		vars++
		if l.Decision == "exclude" {
			excluded += l.Name + ":" + l.Reasons[0].Rule + " "
		}
	}
	if vars != len(lines) || excluded != "base_char:hide s_empty_var:zero_size " {
		t.Errorf("report: %d variable lines for %d variables, excluded %q", vars, len(lines), excluded)
	}

	out, _, err = run(t, "explain", "--features", feats, "--policy", pol, fixture, "base_char")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"variable base_char: LEFT OUT of BTF", "pahole would encode it", "hide", "hide.rego)", "section .bss"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain: no %q in\n%s", want, out)
		}
	}
	out, _, err = run(t, "explain", "--report", hidden, "--json", "base_char")
	if err != nil || !strings.Contains(out, `"kind":"variable"`) || !strings.Contains(out, `"decision":"exclude"`) {
		t.Errorf("explain --report --json: %v\n%s", err, out)
	}

	out, _, _ = run(t, "diff", plain, hidden)
	if !strings.Contains(out, "~ variable base_char: include -> exclude") {
		t.Errorf("diff of the reports:\n%s", out)
	}
}
