package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/rules"
)

// examplesDir holds the example rules files and policies, relative to this
// package.
const examplesDir = "../../examples"

// exampleRulesFiles lists every rules file under examples/.
func exampleRulesFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examplesDir, "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("found %d rules files under %s, want the examples' (8 or more)", len(files), examplesDir)
	}
	return files
}

// TestExampleRulesFilesEncodeFixture: every example rules file loads, its
// policies compile, and it encodes a small object (no corpus needed).
func TestExampleRulesFilesEncodeFixture(t *testing.T) {
	for _, rf := range exampleRulesFiles(t) {
		t.Run(filepath.Base(filepath.Dir(rf))+"/"+filepath.Base(rf), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.btf")
			if _, stderr, err := run(t, "encode", "--summary", "none", "--rules", rf, "-o", out, fixture); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
		})
	}
}

// TestExamplePolicyTests runs "policy test" on each example directory
// that holds policies: its tests must run, and pass.
func TestExamplePolicyTests(t *testing.T) {
	base, _, err := run(t, "policy", "test")
	if err != nil {
		t.Fatal(err)
	}
	defaults := exPassed(t, base)
	dirs, err := filepath.Glob(filepath.Join(examplesDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, dir := range dirs {
		modules, _ := filepath.Glob(filepath.Join(dir, "*.rego"))
		if len(modules) == 0 {
			continue
		}
		tested++
		for _, m := range modules {
			if strings.HasSuffix(m, "_test.rego") {
				continue
			}
			if _, err := os.Stat(strings.TrimSuffix(m, ".rego") + "_test.rego"); err != nil {
				t.Errorf("%s has no tests: %v", m, err)
			}
		}
		out, _, err := run(t, "policy", "test", dir)
		if err != nil {
			t.Errorf("policy test %s: %v\n%s", dir, err, out)
			continue
		}
		if n := exPassed(t, out); n < defaults+5 {
			t.Errorf("policy test %s: %d passed, want the %d default tests and at least 5 of the example's", dir, n, defaults)
		}
	}
	if tested < 2 {
		t.Errorf("policy tests ran for %d example directories, want distro and security", tested)
	}
}

var exPassedLine = regexp.MustCompile(`(?m)^(\d+) passed, 0 failed, 0 skipped$`)

// exPassed reads "N passed, 0 failed, 0 skipped" from policy test's output.
func exPassed(t *testing.T, out string) int {
	t.Helper()
	m := exPassedLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("policy test output has no clean count:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestExamplesDocumented: docs/policies.md names every example rules file
// (it gives the measured effect of each).
func TestExamplesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(docsDir, "policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rf := range exampleRulesFiles(t) {
		rel, _ := filepath.Rel(filepath.Dir(examplesDir), rf)
		if !strings.Contains(string(doc), filepath.ToSlash(rel)) {
			t.Errorf("docs/policies.md does not mention %s", rel)
		}
	}
}

// exampleRun is one encode of the corpus: its report by function id and
// the kinds of its BTF.
type exampleRun struct {
	name  string
	lines map[int]*reportLine
	vars  map[int]*varReportLine // the report's variable lines
	kinds map[string]int
}

// encodeExample encodes the corpus with a rules file ("" for none) and
// reads the report (with report) and the summary.
func encodeExample(t *testing.T, vmlinux, dir, name, rulesFile string, report bool) *exampleRun {
	t.Helper()
	args := []string{"encode", "--summary", "json", "-o", filepath.Join(dir, name+".btf")}
	rep := filepath.Join(dir, name+".ndjson")
	if report {
		args = append(args, "--report", rep)
	}
	if rulesFile != "" {
		args = append(args, "--rules", rulesFile)
	}
	_, stderr, err := run(t, append(args, vmlinux)...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, stderr)
	}
	var sum struct {
		Kinds map[string]int `json:"kinds"`
	}
	if err := json.Unmarshal([]byte(stderr), &sum); err != nil {
		t.Fatalf("%s: summary: %v\n%s", name, err, stderr)
	}
	r := &exampleRun{name: name, kinds: sum.Kinds}
	if report {
		r.lines, r.vars = exReadReport(t, rep)
		if got, want := sum.Kinds["FUNC"], r.count("include"); got != want {
			t.Errorf("%s: %d FUNCs for %d included functions", name, got, want)
		}
	}
	return r
}

func exReadReport(t *testing.T, file string) (map[int]*reportLine, map[int]*varReportLine) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]*reportLine{}
	vars := map[int]*varReportLine{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if lineKind(sc.Bytes()) == varKind {
			v := &varReportLine{}
			if err := json.Unmarshal(sc.Bytes(), v); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			vars[v.ID] = v
			continue
		}
		l := &reportLine{}
		if err := json.Unmarshal(sc.Bytes(), l); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out[l.ID] = l
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out, vars
}

func (r *exampleRun) count(decision string) int {
	n := 0
	for _, l := range r.lines {
		if l.Decision == decision {
			n++
		}
	}
	return n
}

// exSortedIDs returns the ids of a report in order, so that failures are
// listed the same way every time.
func exSortedIDs(lines map[int]*reportLine) []int {
	ids := make([]int, 0, len(lines))
	for id := range lines {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// exRuleNames lists the rules of reasons.
func exRuleNames(rs []reasonJSON) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Rule)
	}
	return out
}

// exHasRule reports whether a reason of rs comes from rule.
func exHasRule(rs []reasonJSON, rule string) bool {
	return slices.Contains(exRuleNames(rs), rule)
}

// exCompare checks every function of got against def: want(id) says what
// got's decision must be, or "" for "the same as def's".
func exCompare(t *testing.T, def, got *exampleRun, want func(id int) string) {
	t.Helper()
	if len(got.lines) != len(def.lines) {
		t.Fatalf("%s: %d functions, the default run %d", got.name, len(got.lines), len(def.lines))
	}
	bad := 0
	for _, id := range exSortedIDs(def.lines) {
		g, ok := got.lines[id]
		if !ok || g.Name != def.lines[id].Name {
			t.Fatalf("%s: function %d is not %s", got.name, id, def.lines[id].Name)
		}
		w := want(id)
		if w == "" {
			w = def.lines[id].Decision
		}
		if g.Decision != w && bad < 10 {
			bad++
			t.Errorf("%s: %s: %s, want %s (default: %s %v; reasons %v, kept by %v)", got.name, g.Name, g.Decision, w,
				def.lines[id].Decision, exRuleNames(def.lines[id].Reasons), exRuleNames(g.Reasons), exRuleNames(g.Kept))
		}
	}
}

// exConfig reads data.KEY of a rules file.
func exConfig(t *testing.T, rulesFile, key string) map[string]any {
	t.Helper()
	r, err := rules.Load(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := r.Data[key].(map[string]any)
	if !ok {
		t.Fatalf("%s: data.%s is %T, want an object", rulesFile, key, r.Data[key])
	}
	return m
}

// exStrings reads a list of strings.
func exStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// TestExamplesOnCorpus encodes the corpus kernel with each example rules
// file and checks what it changes against one default encode.
func TestExamplesOnCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the corpus kernel nine times")
	}
	vmlinux := corpus.Vmlinux(t)
	dir := t.TempDir()
	def := encodeExample(t, vmlinux, dir, "default", "", true)
	ex := func(p string) string { return filepath.Join(examplesDir, p) }

	t.Run("distro", func(t *testing.T) {
		rf := ex("distro/rules.yaml")
		got := encodeExample(t, vmlinux, dir, "distro", rf, true)
		exCheckDistro(t, def, got, exConfig(t, rf, "distro"))
	})

	security := ex("security/rules.yaml")
	unsafe := exTraceUnsafe(t, exConfig(t, security, "trace_safety"))
	t.Run("security", func(t *testing.T) {
		got := encodeExample(t, vmlinux, dir, "security", security, true)
		exCheckSecurity(t, def, got, unsafe)
	})
	t.Run("annotate", func(t *testing.T) {
		rf := ex("security/annotate.yaml")
		got := encodeExample(t, vmlinux, dir, "annotate", rf, true)
		exCheckAnnotate(t, def, got, exTraceUnsafe(t, exConfig(t, rf, "trace_safety")))
	})
	t.Run("guard-trip", func(t *testing.T) {
		out := filepath.Join(dir, "trip.btf")
		_, _, err := run(t, "encode", "--summary", "none", "--rules", ex("security/guard-trip.yaml"), "-o", out, vmlinux)
		if err == nil {
			t.Fatal("the guard did not refuse")
		}
		for _, want := range []string{
			"policy violation: deny rules refuse 4 outcome(s)",
			"guard_btf_ids (../../examples/security/guard.rego): migrate_disable: referenced from .BTF_ids; excluded by exclude.trace_safety",
			"guard_btf_ids (../../examples/security/guard.rego): migrate_enable: referenced from .BTF_ids; excluded by exclude.trace_safety",
			"hides_btf_id (btf_id_guard.rego): migrate_disable: referenced from .BTF_ids (the kernel resolves it by BTF id) and kept by pahole's rules, but exclude.trace_safety leaves it out",
			"hides_btf_id (btf_id_guard.rego): migrate_enable: referenced from .BTF_ids",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s written although the policies refused the outcome", out)
		}
	})

	t.Run("profiles", func(t *testing.T) {
		exCheckProfiles(t, vmlinux, dir, def)
	})
}

// exCheckDistro: the functions pahole skipped only for optimized parameters
// lost at the end of the list are kept, unless dropped; the dropped ones
// (by section or name glob) are left out; nothing else changes.
func exCheckDistro(t *testing.T, def, got *exampleRun, cfg map[string]any) {
	var sections, globs []string
	for _, e := range cfg["drop"].([]any) {
		e := e.(map[string]any)
		if s, ok := e["section"].(string); ok {
			sections = append(sections, s)
		}
		if g, ok := e["name"].(string); ok {
			globs = append(globs, g)
		}
	}
	dropped := func(l *reportLine) bool {
		if slices.Contains(sections, l.Facts.Section) {
			return true
		}
		for _, g := range globs {
			if ok, _ := path.Match(g, l.Name); ok {
				return true
			}
		}
		return false
	}
	scalarOnly, _ := cfg["scalar_lost_only"].(bool)
	clones, _ := cfg["clones"].(bool)
	oOnly, keep, drop := 0, map[int]bool{}, map[int]bool{}
	for id, l := range def.lines {
		if l.Decision == "exclude" && slices.Equal(exRuleNames(l.Reasons), []string{"optimized_parameters"}) {
			oOnly++
			if !dropped(l) && exLostAtEnd(l.Facts.Canonical.Params, scalarOnly) {
				keep[id] = true
			}
		}
		if l.Decision == "include" && dropped(l) {
			drop[id] = true
		}
	}
	// true_signature.distro_clones: the skipped functions with a dotted
	// symbol, neither dropped nor kept; they go in under their clone's
	// name if the clone qualifies (true_sig).
	selected, clonesIn := map[int]bool{}, 0
	for id, l := range def.lines {
		if !clones || l.Decision != "exclude" || dropped(l) || keep[id] {
			continue
		}
		for _, sym := range l.Facts.Symbols {
			if strings.Contains(sym.Name, ".") {
				selected[id] = true
			}
		}
	}
	for id, l := range got.lines {
		by := exRuleNames(l.TrueSig)
		switch {
		case selected[id] && !slices.Equal(by, []string{"distro_clones"}):
			t.Errorf("%s: selected for true signature by %v, want distro_clones", l.Name, by)
		case !selected[id] && len(by) > 0:
			t.Errorf("%s: selected for true signature by %v", l.Name, by)
		case !selected[id] && l.Facts.TrueSig != nil:
			t.Errorf("%s: has a true signature but was not selected", l.Name)
		case selected[id] && l.Facts.TrueSig != nil:
			clonesIn++
		}
	}
	exCompare(t, def, got, func(id int) string {
		switch {
		case keep[id]:
			return "include"
		case drop[id]:
			return "exclude"
		case selected[id] && got.lines[id].Facts.TrueSig != nil:
			return "include"
		}
		return ""
	})
	kept := 0
	for id, l := range got.lines {
		if len(l.Kept) > 0 {
			kept++
			if !keep[id] || !slices.Equal(exRuleNames(l.Kept), []string{"optimized_only"}) {
				t.Errorf("%s kept by %v", l.Name, exRuleNames(l.Kept))
			}
		}
		if drop[id] && !exHasRule(l.Reasons, "distro_drop") {
			t.Errorf("%s: left out without distro_drop: %v", l.Name, exRuleNames(l.Reasons))
		}
	}
	t.Logf("distro: %d of the %d functions pahole skipped only for optimized parameters kept; %d dropped; %d selected for true signatures, %d of them in under their clone's name",
		kept, oOnly, len(drop), len(selected), clonesIn)
	if kept != len(keep) || kept < 100 || len(drop) < 1000 {
		t.Errorf("kept %d (want %d, and 100 or more), dropped %d (want 1000 or more)", kept, len(keep), len(drop))
	}
	if clones && clonesIn < 10 {
		t.Errorf("%d functions in under their clone's name, want 10 or more", clonesIn)
	}
	if got.kinds["FUNC"] != def.kinds["FUNC"]+len(keep)+clonesIn-len(drop) {
		t.Errorf("FUNC %d, want %d + %d kept + %d clones - %d dropped", got.kinds["FUNC"], def.kinds["FUNC"], len(keep), clonesIn, len(drop))
	}
}

// exLostAtEnd is distro.rego's test: every parameter lost to optimization
// (optimized out, or without a location) comes after every other one, and
// with scalarOnly none is a pointer.
func exLostAtEnd(params []facts.Param, scalarOnly bool) bool {
	seenLost := false
	for _, p := range params {
		lost := p.Optimized || !p.HasLoc
		if !lost && seenLost {
			return false
		}
		if lost && scalarOnly && strings.Contains(p.Type, "*") {
			return false
		}
		seenLost = seenLost || lost
	}
	return true
}

// exTraceUnsafe is trace_safety.rego's test, from a rules file's
// data.trace_safety.
func exTraceUnsafe(t *testing.T, cfg map[string]any) func(*reportLine) bool {
	sections := exStrings(cfg["sections"])
	regions := exStrings(cfg["regions"])
	type span struct{ start, end uint64 }
	var ranges []span
	if rs, ok := cfg["ranges"].([]any); ok {
		for _, r := range rs {
			r := r.(map[string]any)
			start, ok1 := r["start"].(uint64)
			end, ok2 := r["end"].(uint64)
			if !ok1 || !ok2 {
				t.Fatalf("range %v: want unsigned start and end", r)
			}
			ranges = append(ranges, span{start, end})
		}
	}
	var globs []string
	for _, e := range cfg["deny"].([]any) {
		switch e := e.(type) {
		case string:
			globs = append(globs, e)
		case map[string]any:
			globs = append(globs, e["name"].(string))
		}
	}
	noreturn, _ := cfg["noreturn"].(bool)
	if len(regions) == 0 || len(globs) == 0 || !noreturn {
		t.Fatalf("rules.yaml no longer sets regions, deny and noreturn: %v", cfg)
	}
	return func(l *reportLine) bool {
		f := l.Facts
		if slices.Contains(sections, f.Section) || (noreturn && f.Noreturn) {
			return true
		}
		for _, r := range f.TextRegions {
			if slices.Contains(regions, r) {
				return true
			}
		}
		for _, s := range f.Symbols {
			for _, r := range ranges {
				if s.Value >= r.start && s.Value < r.end {
					return true
				}
			}
		}
		for _, g := range globs {
			if ok, _ := path.Match(g, l.Name); ok {
				return true
			}
		}
		return false
	}
}

// exCheckSecurity: every function unsafe to trace is left out, by
// trace_safety; nothing else changes; no function referenced from
// .BTF_ids is left out.
func exCheckSecurity(t *testing.T, def, got *exampleRun, unsafe func(*reportLine) bool) {
	newly, inRegion, bySection := 0, 0, 0
	exCompare(t, def, got, func(id int) string {
		if unsafe(def.lines[id]) {
			return "exclude"
		}
		return ""
	})
	for id, l := range got.lines {
		if !unsafe(l) {
			continue
		}
		if !exHasRule(l.Reasons, "trace_safety") {
			t.Errorf("%s: not left out by trace_safety: %v", l.Name, exRuleNames(l.Reasons))
		}
		if def.lines[id].Decision == "include" {
			newly++
		}
		if l.Facts.Section == ".noinstr.text" {
			bySection++
		}
		for _, r := range l.Reasons {
			if strings.HasPrefix(r.Message, "in noinstr code (__noinstr_text_start to __noinstr_text_end)") {
				inRegion++
				if !slices.Contains(l.Facts.TextRegions, "noinstr") {
					t.Errorf("%s: %q but text_regions %v", l.Name, r.Message, l.Facts.TextRegions)
				}
				break
			}
		}
	}
	for _, l := range got.lines {
		if l.Decision == "exclude" && l.Facts.BTFIDRef {
			t.Errorf("%s is referenced from .BTF_ids but left out", l.Name)
		}
	}
	t.Logf("security: %d functions newly left out; .noinstr.text: %d by section, %d by the noinstr text region", newly, bySection, inRegion)
	secrets := exSecretVariables(t, got, "exclude")
	for _, v := range secrets {
		if !exHasRule(v.Reasons, "secret_variables") {
			t.Errorf("variable %s: reasons %+v, want secret_variables", v.Name, v.Reasons)
		}
	}
	if got.kinds["VAR"] != def.kinds["VAR"]-len(secrets) {
		t.Errorf("VAR %d, default %d, %d secret variables left out", got.kinds["VAR"], def.kinds["VAR"], len(secrets))
	}
	if inRegion < 100 || newly < inRegion {
		t.Errorf("%d functions in the noinstr text region, %d newly left out: want 100 or more, and all of them", inRegion, newly)
	}
}

// exCheckAnnotate: no decision changes; every function unsafe to trace that
// goes in carries the decl tag, and the BTF has one DECL_TAG for each.
func exCheckAnnotate(t *testing.T, def, got *exampleRun, unsafe func(*reportLine) bool) {
	exCompare(t, def, got, func(int) string { return "" })
	tagged := 0
	for _, id := range exSortedIDs(got.lines) {
		l := got.lines[id]
		want := l.Decision == "include" && unsafe(l)
		has := len(l.Annotations) == 1 && l.Annotations[0] == annotationJSON{"btfgate:no_trace", -1, "trace_safety", ""}
		if want != has || (!want && len(l.Annotations) > 0) {
			t.Errorf("%s (%s): annotations %+v", l.Name, l.Decision, l.Annotations)
		}
		if want {
			tagged++
		}
	}
	t.Logf("annotate: %d functions tagged", tagged)
	secrets := exSecretVariables(t, got, "include")
	for _, v := range secrets {
		if len(v.Annotations) != 1 || v.Annotations[0].Value != "btfgate:secret" {
			t.Errorf("variable %s: annotations %+v", v.Name, v.Annotations)
		}
	}
	if tagged < 100 || got.kinds["DECL_TAG"] != def.kinds["DECL_TAG"]+tagged+len(secrets) || got.kinds["VAR"] != def.kinds["VAR"] {
		t.Errorf("%d functions and %d variables tagged (want 100 or more functions), DECL_TAG %d, default %d, VAR %d, default %d",
			tagged, len(secrets), got.kinds["DECL_TAG"], def.kinds["DECL_TAG"], got.kinds["VAR"], def.kinds["VAR"])
	}
}

// exSecretVariables returns the variables secret_vars.rego names in a
// run's report (the six percpu ones of the random number generator with
// the default features), checking that each has the decision want.
func exSecretVariables(t *testing.T, got *exampleRun, want string) []*varReportLine {
	t.Helper()
	var out []*varReportLine
	names := map[string]bool{}
	for _, v := range got.vars {
		secret := v.Facts.PaholeSkip == "" && (v.Name == "crngs" || v.Name == "irq_randomness" || strings.HasPrefix(v.Name, "batched_entropy_"))
		if !secret {
			if v.Decision != "exclude" && v.Facts.PaholeSkip != "" || len(v.Reasons) > 0 && v.Facts.PaholeSkip == "" {
				t.Errorf("variable %s: %s %+v, not a secret one", v.Name, v.Decision, v.Reasons)
			}
			continue
		}
		out = append(out, v)
		names[v.Name] = true
		if v.Decision != want {
			t.Errorf("variable %s: %s, want %s", v.Name, v.Decision, want)
		}
	}
	if len(out) != 6 || len(names) != 6 {
		t.Errorf("%d secret variables %v, want 6", len(out), names)
	}
	return out
}

// exCheckProfiles encodes with each feature profile and checks the kinds
// each feature governs.
func exCheckProfiles(t *testing.T, vmlinux, dir string, def *exampleRun) {
	ex := func(name string) string { return filepath.Join(examplesDir, "profiles", name+".yaml") }
	same := func(t *testing.T, got *exampleRun, kinds ...string) {
		t.Helper()
		for _, k := range kinds {
			if got.kinds[k] != def.kinds[k] {
				t.Errorf("%s: %s %d, default %d", got.name, k, got.kinds[k], def.kinds[k])
			}
		}
	}
	if def.kinds["ENUM64"] == 0 {
		t.Fatal("the default encode has no ENUM64: the profiles' checks would prove nothing")
	}
	noEnum64 := func(t *testing.T, got *exampleRun) {
		t.Helper()
		if got.kinds["ENUM64"] != 0 || got.kinds["ENUM"] != def.kinds["ENUM"]+def.kinds["ENUM64"] {
			t.Errorf("%s: ENUM64 %d ENUM %d; want 0 and %d", got.name, got.kinds["ENUM64"], got.kinds["ENUM"], def.kinds["ENUM"]+def.kinds["ENUM64"])
		}
	}

	t.Run("pre-6.0", func(t *testing.T) {
		got := encodeExample(t, vmlinux, dir, "pre-6.0", ex("pre-6.0"), false)
		noEnum64(t, got)
		same(t, got, "TYPE_TAG", "FUNC", "FLOAT", "VAR", "DECL_TAG")
	})
	t.Run("pre-5.17", func(t *testing.T) {
		got := encodeExample(t, vmlinux, dir, "pre-5.17", ex("pre-5.17"), false)
		noEnum64(t, got)
		if got.kinds["TYPE_TAG"] != 0 {
			t.Errorf("TYPE_TAG %d, want 0", got.kinds["TYPE_TAG"])
		}
		same(t, got, "FUNC", "FLOAT", "VAR", "DECL_TAG")
	})
	t.Run("legacy", func(t *testing.T) {
		got := encodeExample(t, vmlinux, dir, "legacy", ex("legacy"), true)
		if got.kinds["FLOAT"] != 0 || got.kinds["INT"] != def.kinds["INT"]+def.kinds["FLOAT"] {
			t.Errorf("FLOAT %d INT %d, want 0 and %d", got.kinds["FLOAT"], got.kinds["INT"], def.kinds["INT"]+def.kinds["FLOAT"])
		}
		same(t, got, "ENUM64", "TYPE_TAG", "VAR", "DATASEC")
		// Without consistent_func, the functions pahole skipped only for
		// an inconsistent prototype go in.
		n := 0
		exCompare(t, def, got, func(id int) string {
			if l := def.lines[id]; l.Decision == "exclude" && slices.Equal(exRuleNames(l.Reasons), []string{"inconsistent_prototype"}) {
				n++
				return "include"
			}
			return ""
		})
		if n == 0 {
			t.Error("no function skipped only for an inconsistent prototype: the check proves nothing")
		}
	})
	t.Run("all", func(t *testing.T) {
		got := encodeExample(t, vmlinux, dir, "all", ex("all"), true)
		if got.kinds["VAR"] <= def.kinds["VAR"] || got.kinds["DATASEC"] <= def.kinds["DATASEC"] {
			t.Errorf("VAR %d DATASEC %d: global_var must add variables and sections to %d and %d",
				got.kinds["VAR"], got.kinds["DATASEC"], def.kinds["VAR"], def.kinds["DATASEC"])
		}
		same(t, got, "ENUM64", "ENUM", "FLOAT", "TYPE_TAG")
		// true_signature emits clones under their own names: functions
		// only go in, and those that do have a true signature.
		in := 0
		for _, id := range exSortedIDs(def.lines) {
			d, g := def.lines[id], got.lines[id]
			switch {
			case d.Decision == "include" && g.Decision != "include":
				t.Errorf("%s left out with true_signature: %v", g.Name, exRuleNames(g.Reasons))
			case d.Decision == "exclude" && g.Decision == "include":
				in++
				if g.Facts.TrueSig == nil {
					t.Errorf("%s goes in with true_signature but has no true signature", g.Name)
				}
			}
		}
		if in == 0 {
			t.Error("true_signature put no function in")
		}
		t.Logf("all: %d functions go in under their clone names", in)
	})
}

// TestExamplesNameNoMachinePaths: the examples' comments name the
// kernel as VMLINUX, not a path of the machine they were written on
// (issue 18, "Why" 6: /tmp/corpus/vmlinux).
func TestExamplesNameNoMachinePaths(t *testing.T) {
	err := filepath.WalkDir("../../examples", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, bad := range []string{"/tmp/corpus", "/root/", "/work/"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s names %s", path, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
