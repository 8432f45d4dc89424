package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `
features: default,+global_var
features_strict: true
policies: [trace-safety.rego, more/]
data:
  deny: ["kmalloc_*", {name: foo, reason: "not for tracing"}]
  tags: [{name: "vfs_*", tag: "vfs"}]
output:
  btf: out/vmlinux.btf
  report: /abs/report.ndjson
`
	r, err := Parse("/etc/btfgate/distro.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if r.Features != "default,+global_var" || !r.FeaturesStrict {
		t.Errorf("features = %q strict %v", r.Features, r.FeaturesStrict)
	}
	if got := strings.Join(r.Policies, " "); got != "/etc/btfgate/trace-safety.rego /etc/btfgate/more" {
		t.Errorf("policies = %s", got)
	}
	if r.Output.BTF != "/etc/btfgate/out/vmlinux.btf" || r.Output.Report != "/abs/report.ndjson" {
		t.Errorf("output = %+v", r.Output)
	}
	deny, ok := r.Data["deny"].([]any)
	if !ok || len(deny) != 2 || deny[0] != "kmalloc_*" {
		t.Errorf("data.deny = %#v", r.Data["deny"])
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"features: default\nfeaturez: x\n", `r.yaml:2: unknown key "featurez" (did you mean "features"?); a rules file has the keys features, features_strict, policies, no_default_policies, data, data_files, output`},
		{"features: default\npolicies: 3\n", "r.yaml:2: want a list of strings, got a number (3)"},
		{"no_default_policies: yes-ish\npolicies: a.rego\n", "r.yaml:1: want true or false, got a string (yes-ish); line 2: want a list of strings, got a string (a.rego)"},
		{"features: [a\n", "r.yaml:"},
		{"output:\n  btf: x\n  bogus: y\n", `r.yaml:3: unknown key "bogus"; output: has the keys btf, report`},
		{"data:\n  1: x\n", "r.yaml:2: data keys must be strings"},
		{"", "r.yaml: empty rules file"},
		{"features: a\n---\nfeatures: b\n", "r.yaml:2: only one YAML document"},
	} {
		_, err := Parse("r.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
}

func TestExpandPolicies(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.rego", "a.rego", "a_test.rego", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(dir, "b.rego")
	got, err := ExpandPolicies([]string{dir, single})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.rego"), filepath.Join(dir, "b.rego"), single}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ExpandPolicies = %v, want %v", got, want)
	}
	if _, err := ExpandPolicies([]string{filepath.Join(dir, "missing.rego")}); err == nil {
		t.Error("a missing policy file was accepted")
	}
}
