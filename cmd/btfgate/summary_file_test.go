package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummaryJSONHoldsEveryWarning: with --summary=json, stderr is one
// JSON document even when there are warnings (an unknown feature among
// them), and --summary-file puts it in a file instead, committed with the
// output.
func TestSummaryJSONHoldsEveryWarning(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.btf")
	_, stderr, err := run(t, "encode", "--summary=json", "--features", "default,no_such_feature", "-o", out, fixture)
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Warnings []string }
	if err := json.Unmarshal([]byte(stderr), &sum); err != nil {
		t.Fatalf("stderr is not one JSON document: %v\n%s", err, stderr)
	}
	if len(sum.Warnings) == 0 || !strings.Contains(sum.Warnings[0], "no_such_feature") {
		t.Errorf("warnings %q lack the unknown feature", sum.Warnings)
	}
	file := filepath.Join(dir, "summary.json")
	_, stderr, err = run(t, "encode", "--summary=json", "--summary-file", file, "-o", out, fixture)
	if err != nil || stderr != "" {
		t.Fatalf("--summary-file: %v, stderr %q", err, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil || !json.Valid(b) {
		t.Errorf("summary file: %v\n%s", err, b)
	}
}
