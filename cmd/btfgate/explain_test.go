package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/loader/elffile"
)

// section returns the part of explain's text output about name: from
// the line starting "name: " to the next blank line.
func section(t *testing.T, out, name string) string {
	t.Helper()
	i := strings.Index(out, name+": ")
	if i < 0 || (i > 0 && out[i-1] != '\n') {
		t.Fatalf("no section for %s in:\n%s", name, head(out, 40))
	}
	s := out[i:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j]
	}
	return s
}

// TestExplainAnswersWhyMissing: one explain call on the corpus kernel
// answers "why is X missing" for a clone name, a misspelling, an
// inline-only function, an assembly symbol and a skipped function (issue
// 18, "Why" 2), and explains included ones.
func TestExplainAnswersWhyMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus kernel")
	}
	vmlinux := corpus.Vmlinux(t)
	out, _, err := run(t, "explain", "--instances", "1", vmlinux,
		"___gnet_stats_copy_basic.isra.0", "perf_event_reed", "kmalloc", "entry_SYSCALL_64", "kmalloc_array", "no_such_*_glob",
		"perf_event_read", "__alloc_pages_slowpath")
	if err == nil || !strings.Contains(err.Error(), "perf_event_reed, kmalloc, entry_SYSCALL_64, no_such_*_glob") {
		t.Errorf("error %v, want the four names that are no function group", err)
	}

	clone := section(t, out, "___gnet_stats_copy_basic.isra.0")
	if !strings.Contains(clone, "a clone symbol of the function group ___gnet_stats_copy_basic") {
		t.Errorf("clone name not resolved to its group:\n%s", clone)
	}
	gnet := section(t, out, "___gnet_stats_copy_basic")
	for _, want := range []string{"LEFT OUT of BTF", "optimized_parameters     optimized parameters (optimized_parameters.rego)",
		"optimized_skip: param 4 bool running has no location"} {
		if !strings.Contains(gnet, want) {
			t.Errorf("___gnet_stats_copy_basic lacks %q:\n%s", want, gnet)
		}
	}

	typo := section(t, out, "perf_event_reed")
	if !strings.Contains(typo, "no symbol and no DWARF subprogram") || !strings.Contains(typo, "did you mean: perf_event_read") {
		t.Errorf("misspelling:\n%s", typo)
	}

	inl := section(t, out, "kmalloc")
	if m := regexp.MustCompile(`inline only: (\d+) inlined copies, no out-of-line symbol`).FindStringSubmatch(inl); m == nil || m[1] == "0" {
		t.Errorf("kmalloc not classified inline only:\n%s", inl)
	}

	// The assembly symbol is in the kernel's symbol table: the answer
	// names its address there.
	f, err := elffile.Open(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	addr := ""
	for _, s := range syms {
		if s.Name == "entry_SYSCALL_64" {
			addr = fmt.Sprintf("%#x", s.Value)
		}
	}
	asm := section(t, out, "entry_SYSCALL_64")
	if addr == "" || !strings.Contains(asm, "symbol without DWARF") || !strings.Contains(asm, "at "+addr) {
		t.Errorf("entry_SYSCALL_64 (symbol at %q):\n%s", addr, asm)
	}

	ka := section(t, out, "kmalloc_array")
	for _, want := range []string{
		"ambiguous_address        ambiguous address",
		"reordered_parameters     reordered parameters",
		"canonical instance: #16 ",
		"instances whose facts trip a rule (2):",
		"#96 CU", "#134 CU",
		"reordered: param 3 size_t size is at position 3, its abstract origin's position 1",
	} {
		if !strings.Contains(ka, want) {
			t.Errorf("kmalloc_array lacks %q:\n%s", want, ka)
		}
	}
	for _, want := range []string{
		"perf_event_read: INCLUDED in BTF\n  pahole would emit it\n  rules that left it out: none\n",
		"param 0 struct perf_event * event: has_loc=true loc_reg=5",
		"__alloc_pages_slowpath: INCLUDED in BTF",
		"__alloc_pages_slowpath.constprop.0@",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q", want)
		}
	}
	if g := section(t, out, "no_such_*_glob"); !strings.Contains(g, "the pattern matches no function group") {
		t.Errorf("glob:\n%s", g)
	}
}

// TestExplainWhenDenyFires: with a deny list the built-in guard refuses,
// explain still explains, says which deny rule refused and which user
// rule excluded the function, and ends with the violation.
func TestExplainWhenDenyFires(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus kernel")
	}
	vmlinux := corpus.Vmlinux(t)
	rules := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(rules, []byte("data:\n  deny: [migrate_disable]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "explain", "--rules", rules, vmlinux, "migrate_disable")
	if err == nil || !strings.Contains(err.Error(), "hides_btf_id") {
		t.Errorf("error %v, want the guard's violation", err)
	}
	s := section(t, out, "migrate_disable")
	for _, want := range []string{"LEFT OUT of BTF", "REFUSED by deny rule hides_btf_id (btf_id_guard.rego)",
		"config_deny              denied by configuration (migrate_disable) (config_lists.rego)", "btf_id_ref=true"} {
		if !strings.Contains(s, want) {
			t.Errorf("lacks %q:\n%s", want, s)
		}
	}
	js, _, _ := run(t, "explain", "--json", "--rules", rules, vmlinux, "migrate_disable")
	var l struct {
		DeniedBy []struct{ Rule string } `json:"denied_by"`
	}
	if err := json.Unmarshal([]byte(js), &l); err != nil || len(l.DeniedBy) != 1 || l.DeniedBy[0].Rule != "hides_btf_id" {
		t.Errorf("--json denied_by = %+v (%v):\n%s", l.DeniedBy, err, head(js, 3))
	}
}

// TestExplainFromReport: explain --report reads an encode's decision
// report instead of decoding, finds clone names there and suggests close
// names; a line that is not a report line is an error naming the line.
func TestExplainFromReport(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.ndjson")
	if _, _, err := run(t, "encode", "--report", report, "-o", filepath.Join(dir, "o.btf"), fixture); err != nil {
		t.Fatal(err)
	}
	direct, _, err := run(t, "explain", fixture, "fn_unused_param")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "explain", "--report", report, "fn_unused_param", "fn_unused_param.isra.0", "fn_unusd_param")
	if err == nil || !strings.Contains(err.Error(), "fn_unusd_param") {
		t.Errorf("error %v, want the misspelt name", err)
	}
	fromReport := section(t, out, "fn_unused_param")
	// The report has everything but the instances.
	want := direct[:strings.Index(direct, "  canonical instance:")]
	if !strings.HasPrefix(fromReport+"\n", want) {
		t.Errorf("from the report:\n%s\nwant it to start as explain INPUT does:\n%s", fromReport, want)
	}
	if !strings.Contains(out, "fn_unused_param.isra.0: a clone symbol of the function group fn_unused_param") {
		t.Errorf("clone name not found in the report:\n%s", out)
	}
	if s := section(t, out, "fn_unusd_param"); !strings.Contains(s, "did you mean: fn_unused_param") {
		t.Errorf("misspelling:\n%s", s)
	}
	bad := filepath.Join(dir, "bad.ndjson")
	os.WriteFile(bad, []byte("{\"name\":\"f\",\"decision\":\"include\",\"facts\":{}}\n{\"name\": 3}\n"), 0o644)
	if _, _, err := run(t, "explain", "--report", bad, "f"); err == nil || !strings.Contains(err.Error(), bad+":2:") {
		t.Errorf("error %v, want one naming %s:2", err, bad)
	}
	if _, _, err := run(t, "explain", fixture); err == nil || !strings.Contains(err.Error(), "explain needs an INPUT") {
		t.Errorf("error %v, want the arguments explain needs, in words", err)
	}
}

// TestExplainMissOnDwzInput: the DWARF scan for a miss reads a dwz'd
// input with its supplement, as the encode does.
func TestExplainMissOnDwzInput(t *testing.T) {
	out, _, err := run(t, "explain", "../../testdata/fixtures/dwz/one-dwz.exe", "dwz_one_rnu", "dwz_one_run")
	if err == nil || !strings.Contains(err.Error(), "no function group: dwz_one_rnu") {
		t.Errorf("error %v", err)
	}
	if s := section(t, out, "dwz_one_rnu"); !strings.Contains(s, "no symbol and no DWARF subprogram has this name\n  did you mean: dwz_one_run") {
		t.Errorf("miss:\n%s", s)
	}
	if s := section(t, out, "dwz_one_run"); !strings.Contains(s, "dwz_one_run: INCLUDED in BTF") {
		t.Errorf("function:\n%s", s)
	}
}
