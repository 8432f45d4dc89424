package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
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

// TestSummaryThreadsWalkers: the summary says on how many CPUs the encode
// ran and on how many workers it walked: one for the fixture, a small
// input, whatever -j asks.
func TestSummaryThreadsWalkers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.btf")
	_, stderr, err := run(t, "encode", "--summary=json", "-j", "4", "-o", out, fixture)
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Threads, Walkers int }
	if err := json.Unmarshal([]byte(stderr), &sum); err != nil {
		t.Fatalf("stderr is not one JSON document: %v\n%s", err, stderr)
	}
	if procs := runtime.GOMAXPROCS(0); sum.Threads != procs || sum.Walkers != 1 {
		t.Errorf("threads %d, walkers %d; want %d, 1", sum.Threads, sum.Walkers, procs)
	}
	_, stderr, err = run(t, "encode", "-o", out, fixture)
	if want := "  threads: "; err != nil || !strings.Contains(stderr, want) {
		t.Errorf("text summary (%v) lacks %q:\n%s", err, want, stderr)
	}
}
