package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noDeclTag is the default feature set without decl_tag (pahole's lists
// have no "-name").
const noDeclTag = "encode_force,var,float,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs"

// TestAnnotationsWithoutDeclTag: policy decl tags are left out without the
// decl_tag feature; the encode says so on stderr, in the JSON summary and
// in the report, and explain marks them.
func TestAnnotationsWithoutDeclTag(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "tag.rego")
	if err := os.WriteFile(pol, []byte("package btfgate.functions\n\nannotate.mine := {id: {\"traced\"} | input.functions[id].name == \"fn_driver\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "r.ndjson")
	const warning = "btfgate: warning: the decl_tag feature is off: 1 decl tag(s) that policies add to 1 function(s) are left out of the BTF (annotate.mine 1)"
	_, stderr, err := run(t, "encode", "--features", noDeclTag, "--policy", pol, "--report", report, "-o", filepath.Join(dir, "o.btf"), fixture)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stderr, warning+"\n") {
		t.Errorf("stderr does not start with the warning:\n%s", stderr)
	}
	if !strings.Contains(stderr, "kinds:") || strings.Contains(stderr, "DECL_TAG") {
		t.Errorf("summary: want no DECL_TAG:\n%s", stderr)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l reportLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Name == "fn_driver" {
			found = true
			want := annotationJSON{"traced", -1, "mine", "the decl_tag feature is off"}
			if len(l.Annotations) != 1 || l.Annotations[0] != want {
				t.Errorf("fn_driver annotations %+v, want %+v", l.Annotations, want)
			}
		}
	}
	if !found {
		t.Error("no fn_driver in the report")
	}

	_, stderr, err = run(t, "encode", "--summary", "json", "--features", noDeclTag, "--policy", pol, "-o", filepath.Join(dir, "o.btf"), fixture)
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stderr), &sum); err != nil {
		t.Fatalf("stderr is not the JSON summary alone: %v\n%s", err, stderr)
	}
	if len(sum.Warnings) != 1 || "btfgate: warning: "+sum.Warnings[0] != warning {
		t.Errorf("summary warnings %q", sum.Warnings)
	}

	out, _, err := run(t, "explain", "--features", noDeclTag, "--policy", pol, fixture, "fn_driver")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `decl tag "traced" component -1 by mine (not encoded: the decl_tag feature is off)`) {
		t.Errorf("explain does not mark the tag:\n%s", out)
	}

	// With decl_tag, no warning and the tag is in.
	_, stderr, err = run(t, "encode", "--policy", pol, "-o", filepath.Join(dir, "o.btf"), fixture)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "warning") || !strings.Contains(stderr, "DECL_TAG 1") {
		t.Errorf("with decl_tag:\n%s", stderr)
	}
}

// TestExplainPrototypeAndTrueSignatureSelection: explain prints the C
// prototype; a true_signature rule on a module changes nothing there
// (pahole finds no clone in ET_REL files) but is listed.
func TestExplainPrototypeAndTrueSignatureSelection(t *testing.T) {
	dir := t.TempDir()
	rf := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(rf, []byte("data:\n  true_signature: [fn_driver]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "explain", "--rules", rf, fixture, "fn_driver", "fn_varargs")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  prototype: int fn_driver(int n)\n",
		"  prototype: int fn_varargs(int count, ...)\n",
		"  true signature by config_true_signature: true signature by configuration (fn_driver) (config_lists.rego)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
}
