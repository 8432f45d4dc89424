package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/internal/refbtf"
)

// status is the exit status main would give err.
func status(err error) int {
	var discard bytes.Buffer
	return exitStatus(&discard, err)
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		head string
		want inputKind
		bad  bool
	}{
		{"\x7fELF\x02\x01", kindBTF, false},
		{"\x9f\xeb\x01\x00", kindBTF, false},
		{"\xeb\x9f\x01\x00", kindBTF, false},
		{`{"id":0,"name":"f","decision":"include"}`, kindReport, false},
		{"\n  {\"id\":0}", kindReport, false},
		{"", kindReport, false},
		{"hello", 0, true},
		{"\x00\x00", 0, true},
	} {
		got, err := sniffBytes("f", []byte(c.head))
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("sniffBytes(%q) = %v, %v; want %v (error %v)", c.head, got, err, c.want, c.bad)
		}
	}
}

func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		err     error
		code    int
		printed string
	}{
		{nil, 0, ""},
		{errors.New("boom"), 1, "btfgate: boom\n"},
		{&exitError{code: 1}, 1, ""},
		{trouble(errors.New("no such file")), 2, "btfgate: no such file\n"},
		{fmt.Errorf("wrapped: %w", &exitError{code: 3, err: errors.New("x")}), 3, "btfgate: wrapped: x\n"},
	} {
		var b bytes.Buffer
		if got := exitStatus(&b, c.err); got != c.code || b.String() != c.printed {
			t.Errorf("exitStatus(%v) = %d, printed %q; want %d, %q", c.err, got, b.String(), c.code, c.printed)
		}
	}
}

func entry(name, decision string, reasons ...string) reportEntry {
	e := reportEntry{Name: name, Decision: decision}
	for _, r := range reasons {
		e.Reasons = append(e.Reasons, reasonJSON{Rule: r, Message: r + " message"})
	}
	return e
}

func TestCompareReports(t *testing.T) {
	a := []reportEntry{
		entry("same", "include"),
		entry("flips", "include"),
		entry("why", "exclude", "ambiguous_address"),
		entry("gone", "exclude", "optimized_parameters"),
		entry("dup", "include"),
		entry("dup", "exclude", "reordered_parameters"),
	}
	b := []reportEntry{
		entry("new", "include"),
		entry("dup", "include"),
		entry("dup", "include"),
		entry("why", "exclude", "ambiguous_address", "config_deny"),
		entry("flips", "exclude", "config_deny"),
		entry("same", "include"),
	}
	d := compareReports("a", a, "b", b)
	names := func(cs []decisionChange) string {
		var s []string
		for _, c := range cs {
			s = append(s, c.Name+":"+c.Old.Decision+">"+c.New.Decision)
		}
		return strings.Join(s, " ")
	}
	if got := names(d.Changed); got != "dup:exclude>include flips:include>exclude" {
		t.Errorf("decision changed: %s", got)
	}
	if got := names(d.ReasonsChanged); got != "why:exclude>exclude" {
		t.Errorf("reasons changed: %s", got)
	}
	if len(d.OnlyA) != 1 || d.OnlyA[0].Name != "gone" || len(d.OnlyB) != 1 || d.OnlyB[0].Name != "new" {
		t.Errorf("only A %v, only B %v", d.OnlyA, d.OnlyB)
	}
	if d.Equal || d.A.Included != 3 || d.B.Excluded != 2 {
		t.Errorf("equal %v, A %+v, B %+v", d.Equal, d.A, d.B)
	}
	var text bytes.Buffer
	if err := d.writeText(&text, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"decision changed: 2 (1 now excluded, 1 now included)",
		"  ~ dup: exclude -> include\n      A: exclude, reordered_parameters: reordered_parameters message\n      B: include\n",
		"  … 1 more\n",
		"      B: exclude, ambiguous_address: ambiguous_address message; config_deny: config_deny message\n",
		"functions only in A: 1\n  - gone: exclude, optimized_parameters: optimized_parameters message\n",
		"functions only in B: 1\n  + new: include\n",
		"\ndifferent\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if d := compareReports("a", a, "a", a); !d.Equal {
		t.Errorf("a report differs from itself: %+v", d)
	}
}

func TestReadReportErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ content, want string }{
		{"{\"name\":\"f\",\"decision\":\"include\"}\n{not json\n", ":2: not a decision report line"},
		{"\n{\"name\":\"f\",\"decision\":\"maybe\"}\n", ":2: not a decision report line: want a name"},
		{"{\"decision\":\"include\"}", ":1: not a decision report line: want a name"},
	} {
		p := filepath.Join(dir, "r.ndjson")
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readReport(p); err == nil || !strings.Contains(err.Error(), p+c.want) {
			t.Errorf("readReport(%q) error = %v, want %s%s", c.content, err, p, c.want)
		}
	}
}

// encodeFixture encodes the fixture with extra flags and returns the BTF
// and report paths.
func encodeFixture(t *testing.T, dir, name string, flags ...string) (btfPath, report string) {
	t.Helper()
	btfPath, report = filepath.Join(dir, name+".btf"), filepath.Join(dir, name+".ndjson")
	args := append([]string{"encode", "--summary", "none", "-o", btfPath, "--report", report}, flags...)
	if _, _, err := run(t, append(args, fixture)...); err != nil {
		t.Fatal(err)
	}
	return btfPath, report
}

// writeRules writes a rules file denying the functions that match glob.
func writeRules(t *testing.T, dir, glob, reason string) string {
	t.Helper()
	p := filepath.Join(dir, "deny.yaml")
	src := fmt.Sprintf("data:\n  deny:\n    - {name: %q, reason: %q}\n", glob, reason)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiffFixture(t *testing.T) {
	dir := t.TempDir()
	defBTF, defRep := encodeFixture(t, dir, "default")
	denyBTF, denyRep := encodeFixture(t, dir, "deny", "--rules", writeRules(t, dir, "fn_*_by_value", "no by-value structs"))

	out, _, err := run(t, "diff", defBTF, defBTF)
	if err != nil || !strings.HasSuffix(out, "\nequal\n") {
		t.Errorf("BTF against itself: %v\n%s", err, out)
	}
	out, _, err = run(t, "diff", defRep, defRep)
	if err != nil || !strings.HasSuffix(out, "\nequal\n") {
		t.Errorf("report against itself: %v\n%s", err, out)
	}

	out, _, err = run(t, "diff", defRep, denyRep)
	if status(err) != 1 {
		t.Errorf("reports: exit status %d (%v), want 1", status(err), err)
	}
	for _, want := range []string{
		"decision changed: 2 (2 now excluded, 0 now included)",
		"  ~ fn_big_by_value: include -> exclude\n      A: include\n      B: exclude, config_deny: no by-value structs (config_lists.rego)\n",
		"  ~ fn_struct_by_value: include -> exclude\n",
		"reasons changed, same decision: 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report diff lacks %q:\n%s", want, out)
		}
	}

	out, _, err = run(t, "diff", "--json", defBTF, denyBTF)
	if status(err) != 1 {
		t.Errorf("BTF: exit status %d (%v), want 1", status(err), err)
	}
	var r struct {
		Equal     bool
		Functions btfdiff.Changes
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Equal || len(r.Functions.Removed) != 2 || r.Functions.Removed[0].Name != "fn_big_by_value" ||
		len(r.Functions.Added)+len(r.Functions.Changed) != 0 {
		t.Errorf("BTF diff: equal %v, functions %+v", r.Equal, r.Functions)
	}

	split := filepath.Join(dir, "split.btf")
	if _, _, err := run(t, "encode", "--summary", "none", "--btf_base", defBTF, "-o", split, fixture); err != nil {
		t.Fatal(err)
	}
	if out, _, err := run(t, "diff", "--base", defBTF, split, split); err != nil || !strings.Contains(out, "(split on "+defBTF) {
		t.Errorf("split BTF against itself: %v\n%s", err, out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{split, split}, "split BTF, such as a module's, needs its base"},
		{[]string{"--new-base", defBTF, split, split}, "needs its base: --base, --new-base"},
		{[]string{defBTF, defRep}, "is BTF but"},
		{[]string{defBTF, filepath.Join(dir, "missing")}, "no such file"},
		{[]string{defBTF}, "want OLD and NEW"},
		{[]string{"--no-such-flag", defBTF, defBTF}, "unknown flag"},
		{[]string{"--base", defBTF, defRep, defRep}, "--base and --new-base are for BTF"},
		{[]string{fixture + "x", defBTF}, "no such file"},
		{[]string{fixture, defBTF}, "no .BTF section"},
	} {
		_, _, err := run(t, append([]string{"diff"}, c.args...)...)
		if status(err) != 2 || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("diff %q: exit status %d, error %v; want 2 and %q", c.args, status(err), err, c.want)
		}
	}
}

// TestMainProcess runs main() for TestDiffExitStatusOfProcess; it does
// nothing in an ordinary test run.
func TestMainProcess(t *testing.T) {
	args := os.Getenv("BTFGATE_TEST_MAIN_ARGS")
	if args == "" {
		t.Skip("helper process for TestDiffExitStatusOfProcess")
	}
	os.Args = append([]string{"btfgate"}, strings.Split(args, "\n")...)
	main()
	os.Exit(0)
}

// TestDiffExitStatusOfProcess checks the status the process exits with,
// which only main sets.
func TestDiffExitStatusOfProcess(t *testing.T) {
	dir := t.TempDir()
	a, _ := encodeFixture(t, dir, "a")
	b, _ := encodeFixture(t, dir, "b", "--features", "default,global_var")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"diff", a, a}, 0, ""},
		{[]string{"diff", a, b}, 1, ""},
		{[]string{"diff", a, filepath.Join(dir, "missing")}, 2, "btfgate: stat " + filepath.Join(dir, "missing") + ": no such file"},
		{[]string{"explain"}, 1, "btfgate: explain needs an INPUT"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMainProcess$")
		cmd.Env = append(os.Environ(), "BTFGATE_TEST_MAIN_ARGS="+strings.Join(c.args, "\n"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.HasPrefix(stderr.String(), c.stderr) || (c.stderr == "" && stderr.Len() > 0) {
			t.Errorf("btfgate %q: exit status %d, stderr %q; want %d, %q", c.args, code, stderr.String(), c.code, c.stderr)
		}
	}
}

// TestDiffCorpus encodes the corpus kernel twice (default policies, and a
// rules file denying kmalloc*), then compares with pahole's reference,
// with Debian's own .BTF of the same kernel, and the two reports.
func TestDiffCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the corpus kernel")
	}
	vmlinux := corpus.Vmlinux(t)
	ref := corpus.ReferenceFile(t, "amd64.default.btf")
	dir := t.TempDir()
	ours, defRep := filepath.Join(dir, "ours.btf"), filepath.Join(dir, "default.ndjson")
	_, stderr, err := run(t, "encode", "--summary", "json", "--report", defRep, "-o", ours, vmlinux)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("summary", func(t *testing.T) {
		var s summary
		if err := json.Unmarshal([]byte(stderr), &s); err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		// The reference's skip log: §6.1 of the spec.
		want := map[string]int{"optimized parameters": 496, "ambiguous address": 315, "reordered parameters": 47,
			"inconsistet prototype": 32, "unexpected register usage for parameter": 8}
		if s.Functions.Kept != 43913 || s.Functions.Skipped != 898 || fmt.Sprint(s.Functions.SkippedBy) != fmt.Sprint(want) {
			t.Errorf("functions %+v, want 43913 kept, 898 skipped %v", s.Functions, want)
		}
		if s.Variables.Total != 381 || len(s.Variables.BySection) != 1 || s.Variables.BySection[".data..percpu"] != 381 {
			t.Errorf("variables %+v, want 381 in .data..percpu", s.Variables)
		}
	})

	t.Run("reference", func(t *testing.T) {
		out, _, err := run(t, "diff", ours, ref)
		if err != nil || !strings.Contains(out, "functions: 0 added, 0 removed, 0 changed") || !strings.HasSuffix(out, "\nequal\n") {
			t.Errorf("our output differs from the reference (%v):\n%s", err, out)
		}
	})

	t.Run("debian", func(t *testing.T) {
		// Debian built this kernel's .BTF with pahole 1.24: its function
		// selection is older. Our output equals the reference, so the
		// difference must be the one between Debian's and the reference's.
		want := btfdiff.Compare(mustLoad(t, vmlinux), mustLoad(t, ref))
		out, _, err := run(t, "diff", "--json", vmlinux, ours)
		if status(err) != 1 {
			t.Fatalf("exit status %d (%v), want 1", status(err), err)
		}
		var got struct {
			Equal                       bool
			Functions, Variables, Types btfdiff.Changes
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		counts := func(c btfdiff.Changes) [3]int { return [3]int{len(c.Added), len(c.Removed), len(c.Changed)} }
		for _, g := range []struct {
			what      string
			got, want btfdiff.Changes
			fixed     [3]int // measured: added, removed, changed
		}{
			{"functions", got.Functions, want.Functions, [3]int{134, 355, 462}},
			{"variables", got.Variables, want.Variables, [3]int{1, 0, 0}},
			{"named types", got.Types, want.Types, [3]int{0, 0, 1}},
		} {
			if counts(g.got) != counts(g.want) || counts(g.got) != g.fixed {
				t.Errorf("%s: added, removed, changed = %v; Debian vs reference %v; measured %v", g.what, counts(g.got), counts(g.want), g.fixed)
			}
		}
		if got.Equal || len(got.Functions.Added) == 0 || got.Functions.Added[0].Name != want.Functions.Added[0].Name {
			t.Errorf("first added function %v, want %s", got.Functions.Added[:1], want.Functions.Added[0].Name)
		}
		text, _, _ := run(t, "diff", "--limit", "3", vmlinux, ours)
		for _, line := range []string{
			"functions: 134 added, 355 removed, 462 changed\n",
			"variables: 1 added, 0 removed, 0 changed\n  + VAR fixed_percpu_data global -> STRUCT fixed_percpu_data\n",
			"  ~ DATASEC .data..percpu\n      + VAR fixed_percpu_data @0 size=48\n",
			"  … 131 more\n",
			"\ndifferent\n",
		} {
			if !strings.Contains(text, line) {
				t.Errorf("text output lacks %q", line)
			}
		}
	})

	t.Run("reports", func(t *testing.T) {
		denyRep := filepath.Join(dir, "deny.ndjson")
		rules := writeRules(t, dir, "kmalloc*", "allocator internals")
		if _, _, err := run(t, "encode", "--summary", "none", "--rules", rules, "--report", denyRep, "-o", filepath.Join(dir, "deny.btf"), vmlinux); err != nil {
			t.Fatal(err)
		}
		def, err := readReport(defRep)
		if err != nil {
			t.Fatal(err)
		}
		// Every kmalloc* function that was in must now be out; every one
		// that was out must show the deny reason too; nothing else moves.
		var wantChanged, wantReasons []string
		for _, e := range def {
			if strings.HasPrefix(e.Name, "kmalloc") {
				if e.Decision == "include" {
					wantChanged = append(wantChanged, e.Name)
				} else {
					wantReasons = append(wantReasons, e.Name)
				}
			}
		}
		if len(wantChanged) == 0 || len(wantReasons) == 0 {
			t.Fatalf("no kmalloc* functions both kept (%v) and skipped (%v) by default", wantChanged, wantReasons)
		}
		out, _, err := run(t, "diff", "--json", defRep, denyRep)
		if status(err) != 1 {
			t.Fatalf("exit status %d (%v), want 1", status(err), err)
		}
		var d reportDiff
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		var changed, reasons []string
		for _, c := range d.Changed {
			changed = append(changed, c.Name)
			last := c.New.Reasons[len(c.New.Reasons)-1]
			if c.Old.Decision != "include" || c.New.Decision != "exclude" || last.Rule != "config_deny" || last.Message != "allocator internals" {
				t.Errorf("%s: %s -> %s, reasons %+v", c.Name, c.Old.Decision, c.New.Decision, c.New.Reasons)
			}
		}
		for _, c := range d.ReasonsChanged {
			reasons = append(reasons, c.Name)
		}
		if strings.Join(changed, " ") != strings.Join(wantChanged, " ") || strings.Join(reasons, " ") != strings.Join(wantReasons, " ") {
			t.Errorf("decision changed %v, want %v; reasons changed %v, want %v", changed, wantChanged, reasons, wantReasons)
		}
		if len(d.OnlyA)+len(d.OnlyB) != 0 || d.A.Functions != d.B.Functions {
			t.Errorf("only A %d, only B %d", len(d.OnlyA), len(d.OnlyB))
		}
		text, _, _ := run(t, "diff", defRep, denyRep)
		want := fmt.Sprintf("decision changed: %d (%d now excluded, 0 now included)\n", len(wantChanged), len(wantChanged))
		if !strings.Contains(text, want) || !strings.Contains(text, "  ~ kmalloc_trace: include -> exclude\n      A: include\n      B: exclude, config_deny: allocator internals (config_lists.rego)\n") {
			t.Errorf("text output lacks %q or kmalloc_trace's lines:\n%s", want, text)
		}
	})
}

// TestDiffCorpusAllFeatures: with global_var and true_signature, btfgate
// diff between pahole's reference and our output shows exactly the DATASEC
// entries that overlap one before them in the reference (which the kernel
// refuses and the encode drops), and the encode's warning counts them.
func TestDiffCorpusAllFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the corpus kernel")
	}
	vmlinux := corpus.Vmlinux(t)
	ref := corpus.ReferenceFile(t, "amd64.all.btf")
	raw, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	_, dropped, err := refbtf.WithoutOverlaps(raw)
	if err != nil || len(dropped) == 0 {
		t.Fatalf("%s: %d overlapping DATASEC entries, %v", ref, len(dropped), err)
	}
	ours := filepath.Join(t.TempDir(), "all.btf")
	_, stderr, err := run(t, "encode", "--summary", "json", "--features", "default,global_var,true_signature", "-o", ours, vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	var s summary
	if err := json.Unmarshal([]byte(stderr), &s); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if s.Variables.Dropped != len(dropped) || len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], fmt.Sprintf("%d DATASEC entries dropped", len(dropped))) {
		t.Errorf("summary: %d entries dropped, warnings %q; the reference has %d overlapping", s.Variables.Dropped, s.Warnings, len(dropped))
	}
	out, _, err := run(t, "diff", ref, ours)
	if status(err) != 1 {
		t.Fatalf("exit status %d (%v), want 1", status(err), err)
	}
	var want, got []string
	for _, e := range dropped {
		want = append(want, fmt.Sprintf("%s - VAR %s @%d size=%d", e.Section, e.Var, e.Offset, e.Size))
	}
	section := ""
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(line, "  ~ DATASEC "); ok {
			section = name
		} else if v, ok := strings.CutPrefix(line, "      "); ok && (strings.HasPrefix(v, "- ") || strings.HasPrefix(v, "+ ")) {
			got = append(got, section+" "+v)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("btfgate diff lists %d entries, the reference has %d overlapping; first of each: %.1q, %.1q", len(got), len(want), got, want)
	}
	for _, line := range []string{"functions: 0 added, 0 removed, 0 changed\n", "variables: 0 added, 0 removed, 0 changed\n",
		fmt.Sprintf("named types: 0 added, 0 removed, %d changed\n", len(slices.CompactFunc(slices.Clone(dropped), func(a, b refbtf.Entry) bool { return a.Section == b.Section })))} {
		if !strings.Contains(out, line) {
			t.Errorf("btfgate diff lacks %q:\n%.2000s", line, out)
		}
	}
}

func mustLoad(t *testing.T, path string) *btfdiff.Set {
	t.Helper()
	s, err := btfdiff.Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCountDecisions(t *testing.T) {
	r := func(rule, msg string) engine.Reason { return engine.Reason{Rule: rule, Message: msg} }
	ds := []engine.Decision{
		{Include: true},
		{Include: true, Reasons: []engine.Reason{r("ambiguous_address", "ambiguous address")}, Final: "ambiguous address",
			Kept: []engine.Reason{r("config_keep", "kept")}},
		{Include: true, Kept: []engine.Reason{r("config_keep", "kept")}}, // kept anyway: not an override
		{Final: "optimized parameters", Reasons: []engine.Reason{r("unexpected_register", "x"), r("optimized_parameters", "optimized parameters")}},
		{Final: "optimized parameters"},
		{Reasons: []engine.Reason{r("config_deny", "not for tracing")}},
		{},
	}
	c := countDecisions(ds)
	if c.Kept != 3 || c.Skipped != 4 ||
		fmt.Sprint(c.SkippedBy) != "map[(no reason given):1 not for tracing:1 optimized parameters:2]" ||
		fmt.Sprint(c.KeptBy) != "map[config_keep:1]" {
		t.Errorf("countDecisions = %+v", c)
	}
	if got := byCount(c.SkippedBy); got != "optimized parameters 2, (no reason given) 1, not for tracing 1" {
		t.Errorf("byCount = %q", got)
	}
}

func TestEncodeSummaryCounts(t *testing.T) {
	dir := t.TempDir()
	_, stderr, err := run(t, "encode", "-o", filepath.Join(dir, "o.btf"), "--rules", writeRules(t, dir, "fn_big_by_value", "too big"), fixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  functions: 8 kept, 3 skipped (too big 1, uncertain parameter location 1, unexpected register usage for parameter 1)\n",
		"  variables: 0\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	_, stderr, err = run(t, "encode", "-o", filepath.Join(dir, "o.btf"), "--summary=json", "--features=default,global_var", fixture)
	if err != nil {
		t.Fatal(err)
	}
	var s summary
	if err := json.Unmarshal([]byte(stderr), &s); err != nil {
		t.Fatal(err)
	}
	vars := 0
	for _, n := range s.Variables.BySection {
		vars += n
	}
	if s.Variables.Total == 0 || vars != s.Variables.Total || vars != s.Kinds["VAR"] || len(s.Variables.BySection) != s.Kinds["DATASEC"] {
		t.Errorf("variables %+v, kinds %v", s.Variables, s.Kinds)
	}
	if s.Functions.Kept != s.Kinds["FUNC"] || s.Functions.Skipped != 2 {
		t.Errorf("functions %+v, FUNC %d", s.Functions, s.Kinds["FUNC"])
	}
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, w := range map[string]io.Writer{"pipe": w, "null": null, "file": file, "buffer": &bytes.Buffer{}} {
		if isTerminal(w) {
			t.Errorf("%s counts as a terminal", name)
		}
	}
	if hook, stop := newProgress(w); hook != nil {
		t.Error("newProgress on a pipe gave a hook")
	} else {
		stop()
	}
	// A pseudo-terminal's master side is a character device.
	if pt, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pt.Close()
		if !isTerminal(pt) {
			t.Error("/dev/ptmx does not count as a terminal")
		}
	}
}

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgressLine(&b, "CU", func() time.Time { return clock }, 100*time.Millisecond)
	p.update(1, 2352)
	clock = clock.Add(50 * time.Millisecond)
	p.update(2, 2352) // too soon: not drawn
	clock = clock.Add(60 * time.Millisecond)
	p.update(999, 2352)
	p.update(2352, 2352) // the last step is always drawn
	p.stop()
	p.update(5, 10) // after stop: nothing
	want := "\rCU 1/2352 (0%)\rCU 999/2352 (42%)\rCU 2352/2352 (100%)\r" + strings.Repeat(" ", len("CU 2352/2352 (100%)")) + "\r"
	if b.String() != want {
		t.Errorf("progress wrote %q\nwant %q", b.String(), want)
	}

	b.Reset()
	p = newProgressLine(&b, "CU", func() time.Time { return clock }, 0)
	p.update(10, 10)
	p.update(9, 0) // shorter line: padded over the longer one
	if want := "\rCU 10/10 (100%)\rCU 9/0         "; b.String() != want {
		t.Errorf("progress wrote %q, want %q", b.String(), want)
	}
}

// TestSteps: a step replaces the previous one on the line, stop erases
// it; off a terminal nothing is written.
func TestSteps(t *testing.T) {
	var b bytes.Buffer
	step, stop := stepsOn(&b)
	step("diff: reading a and b")
	step("diff: comparing")
	stop()
	want := "\rdiff: reading a and b\rdiff: comparing      \r" + strings.Repeat(" ", len("diff: comparing")) + "\r"
	if b.String() != want {
		t.Errorf("steps wrote %q\nwant %q", b.String(), want)
	}
	b.Reset()
	step, stop = newSteps(&b)
	step("x")
	stop()
	if b.Len() > 0 {
		t.Errorf("steps wrote %q to a buffer", b.String())
	}
}
