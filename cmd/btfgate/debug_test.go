package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDebugSendsPrintToStderr: a policy's print() reaches stderr with
// --debug, naming the module and line, and is dropped without it (issue
// 18, "Why" 4: print() was dropped outside policy test).
func TestDebugSendsPrintToStderr(t *testing.T) {
	pol := filepath.Join(t.TempDir(), "p.rego")
	src := "package btfgate.functions\n\nexclude.mine := {id: {\"mine\"} |\n\tsome id, f in input.functions\n\tf.name == \"fn_none\"\n} if {\n\tsome f in input.functions\n\tprint(\"looking at\", f.name)\n}\n"
	if err := os.WriteFile(pol, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := run(t, "explain", "--debug", "--policy", pol, fixture, "fn_driver")
	if err != nil {
		t.Fatal(err)
	}
	if want := pol + ":8: looking at fn_driver\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	_, stderr, err = run(t, "explain", "--policy", pol, fixture, "fn_driver")
	if err != nil || strings.Contains(stderr, "looking at") {
		t.Errorf("without --debug: %v\n%s", err, stderr)
	}
	out := filepath.Join(t.TempDir(), "o.btf")
	_, stderr, err = run(t, "encode", "--debug", "--summary=none", "--policy", pol, "-o", out, fixture)
	if err != nil || !strings.Contains(stderr, ":8: looking at fn_driver") {
		t.Errorf("encode --debug: %v\n%s", err, stderr)
	}
}
