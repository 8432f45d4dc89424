package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataFlagAndDataFiles: lists come from data files given with --data
// or data_files: in rules (JSON, YAML, plain text), and the unmatched
// entries and bad entries are reported at their file and line.
func TestDataFlagAndDataFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deny := write("deny.txt", "# deny list\nfn_driver\n\nfn_varargz\n")
	lists := write("lists.json", "{\"deny\": [\"fn_block_type\"]}\n")
	out, stderr, err := run(t, "explain", "--data", "deny="+deny, "--data", lists, fixture, "fn_driver", "fn_block_type")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fn_driver", "fn_block_type"} {
		if !strings.Contains(out, name+": LEFT OUT of BTF") || !strings.Contains(out, "denied by configuration ("+name+")") {
			t.Errorf("%s not denied by the data file:\n%s", name, out)
		}
	}
	if want := deny + `:4: data.btfgate.config.deny[1] "fn_varargz" matches no function (did you mean "fn_varargs"?)`; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}

	rf := write("r.yaml", "data_files:\n  - deny=deny.txt\n")
	out, _, err = run(t, "explain", "--rules", rf, fixture, "fn_driver")
	if err != nil || !strings.Contains(out, "fn_driver: LEFT OUT of BTF") {
		t.Errorf("data_files: %v\n%s", err, out)
	}

	bad := write("bad.yaml", "deny:\n  - fn_driver\n  - 3\n")
	if _, _, err := run(t, "explain", "--data", bad, fixture, "fn_driver"); err == nil || !strings.HasPrefix(err.Error(), bad+":3: ") {
		t.Errorf("bad entry: %v, want an error at %s:3", err, bad)
	}
	if _, _, err := run(t, "explain", "--data", deny, fixture, "fn_driver"); err == nil || !strings.Contains(err.Error(), "needs a key: KEY=") {
		t.Errorf("plain text without a key: %v", err)
	}
	// An output may not overwrite a data file.
	if _, _, err := run(t, "encode", "--data", lists, "-o", lists, fixture); err == nil {
		t.Error("encode wrote over its data file")
	}
	if b, _ := os.ReadFile(lists); string(b) != "{\"deny\": [\"fn_block_type\"]}\n" {
		t.Errorf("data file changed: %q", b)
	}
}

// TestRulesInputsAreNotOutputs: a rules file's data_files and policy
// modules are inputs: an output of encode, facts or the pahole front end
// that is one of them is refused, and the file keeps its bytes.
func TestRulesInputsAreNotOutputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const denyText, policyText = "fn_driver\n", "package btfgate.user\n\nexclude.mine[id] if {\n\tsome id, f in input.functions\n\tf.name == \"fn_varargs\"\n}\n"
	deny := write("deny.txt", denyText)
	pol := write("mine.rego", policyText)
	rf := write("r.yaml", "data_files:\n  - deny=deny.txt\npolicies:\n  - mine.rego\n")
	in := write("x.o", "")
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, text string
		args       []string
	}{
		{deny, denyText, []string{"encode", "--rules", rf, "-o", deny, in}},
		{pol, policyText, []string{"encode", "--rules", rf, "-o", pol, in}},
		{deny, denyText, []string{"facts", "--rules", rf, "-o", deny, in}},
		{pol, policyText, []string{"pahole", "--btfgate-rules", rf, "--btf_encode_detached=" + pol, in}},
	} {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), "refusing to overwrite an input") {
			t.Errorf("%v: %v, want a refusal", c.args, err)
		}
		if b, _ := os.ReadFile(c.file); string(b) != c.text {
			t.Errorf("%v: %s changed", c.args, c.file)
		}
	}
	if _, _, err := run(t, "encode", "--rules", rf, "-o", filepath.Join(dir, "ok.btf"), in); err != nil {
		t.Errorf("the same rules with another output: %v", err)
	}
}
