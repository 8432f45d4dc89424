package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// run executes the CLI with args and returns stdout, stderr and the error.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

const fixture = "../../testdata/fixtures/types.gcc-dwarf5.o"

// truncatedFixture writes the first third of fixture to dir/truncated.o
// and returns its path.
func truncatedFixture(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "truncated.o")
	if err := os.WriteFile(bad, data[:len(data)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	return bad
}

func TestEncodeFixtureWritesOutputAndSummary(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.btf")
	_, stderr, err := run(t, "encode", "-o", out, fixture)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil || st.Size() < 100 {
		t.Fatalf("output %s: %v (size %v)", out, err, st)
	}
	if !strings.Contains(stderr, "types (") || !strings.Contains(stderr, "kinds:") {
		t.Errorf("summary missing from stderr: %q", stderr)
	}
}

func TestEncodeErrorLeavesNoOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.btf")
	bad := truncatedFixture(t, dir)
	_, _, err := run(t, "encode", "-o", out, bad)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("error = %v, want one naming %s", err, bad)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed encode, want only the input", len(entries))
	}
}

func TestFeaturesCommand(t *testing.T) {
	out, _, err := run(t, "features")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n != 15 {
		t.Errorf("features lists %d lines, want pahole's 15:\n%s", n, out)
	}
	if !strings.Contains(out, "true_signature") || !strings.Contains(out, "consistent_func") {
		t.Errorf("features output lacks names: %s", out)
	}
}

func TestPolicyTestCommand(t *testing.T) {
	out, _, err := run(t, "policy", "test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, " passed, 0 failed") {
		t.Errorf("policy test output: %s", out)
	}
}

func TestRulesFileDenyShowsInReport(t *testing.T) {
	dir := t.TempDir()
	rulesFile := filepath.Join(dir, "rules.yaml")
	src := "features: default\ndata:\n  deny:\n    - {name: \"fn_*\", reason: \"not for tracing\"}\noutput:\n  btf: out.btf\n  report: report.ndjson\n"
	if err := os.WriteFile(rulesFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "encode", "--rules", rulesFile, "--summary", "none", fixture); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "report.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	denied := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l reportLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(l.Name, "fn_") {
			if l.Decision != "exclude" || len(l.Reasons) == 0 || l.Reasons[len(l.Reasons)-1].Message != "not for tracing" {
				t.Errorf("%s: decision %s reasons %+v", l.Name, l.Decision, l.Reasons)
			}
			denied++
		}
	}
	if denied == 0 {
		t.Error("no fn_* function in the report")
	}
	if _, err := os.Stat(filepath.Join(dir, "out.btf")); err != nil {
		t.Errorf("output.btf of the rules file not written: %v", err)
	}
}

func TestRulesFileErrorNamesLine(t *testing.T) {
	rulesFile := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(rulesFile, []byte("features: default\nfeaturs: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "encode", "--rules", rulesFile, "-o", "/dev/null", fixture)
	if err == nil || !strings.Contains(err.Error(), rulesFile+":2:") {
		t.Errorf("error = %v, want %s:2: ...", err, rulesFile)
	}
}

// TestVerboseMatchesPaholeLog: -v prints exactly the reference's "skipping"
// lines (final reasons and prototype mismatches).
func TestVerboseMatchesPaholeLog(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the corpus kernel")
	}
	vmlinux := corpus.Vmlinux(t)
	logPath := corpus.ReferenceFile(t, "amd64.default.skips.log")
	out, _, err := run(t, "encode", "-v", "--summary", "none", "-o", filepath.Join(t.TempDir(), "o.btf"), vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(ref), "\n") {
		if strings.Contains(l, " : skipping BTF encoding of function due to ") {
			want = append(want, l)
		}
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("-v gave %d lines, the reference log %d; first lines: %q / %q", len(got), len(want), got[:3], want[:3])
	}
}

// TestEncodePolicyCacheNotWritten: a policy cache directory that cannot
// be made is a warning naming it, and the encode goes on.
func TestEncodePolicyCacheNotWritten(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(policyCacheEnv, blocked)
	out := filepath.Join(dir, "out.btf")
	_, stderr, err := run(t, "encode", "-o", out, fixture)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "warning: policy cache "+blocked) {
		t.Errorf("no warning about the policy cache in:\n%s", stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no output: %v", err)
	}
}

// TestEncodeBaseCacheFlag: --base-cache DIR stores the base there on the
// first split encode and maps it on the second, which says so, with the
// same bytes; --base-cache off stores nothing.
func TestEncodeBaseCacheFlag(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.btf")
	if _, _, err := run(t, "encode", "--summary", "none", "-o", base, "../../testdata/fixtures/types.gcc-dwarf5.so"); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	var outs [][]byte
	for i, want := range []bool{false, true} {
		out := filepath.Join(dir, "split.btf")
		_, stderr, err := run(t, "encode", "--base-cache", cache, "--btf_base", base, "-o", out, "../../testdata/fixtures/tags.clang-dwarf5.o")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(stderr, "from the base cache"); got != want {
			t.Errorf("encode %d: summary says cached %v, want %v:\n%s", i+1, got, want, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, data)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("the second encode's bytes differ from the first's")
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "*.btfbase")); len(files) != 1 {
		t.Errorf("cache holds %v, want one prepared base", files)
	}
	off := filepath.Join(dir, "off")
	t.Setenv(baseCacheEnv, off)
	if _, _, err := run(t, "encode", "--base-cache", "off", "--btf_base", base, "-o", filepath.Join(dir, "x.btf"), "../../testdata/fixtures/tags.clang-dwarf5.o"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(off); !os.IsNotExist(err) {
		t.Errorf("--base-cache off: %s exists (%v)", off, err)
	}
}
