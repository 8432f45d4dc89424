package encode

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/internal/refbtf"
)

// corpusRun is one encode of the corpus kernel, shared by the tests of a
// test binary: encoding it takes seconds.
type corpusRun struct {
	res *Result
	raw []byte
	err error
}

var (
	defaultRunOnce, allRunOnce sync.Once
	defaultRun, allRun         corpusRun
)

func encodeCorpusDefault(t *testing.T) *corpusRun {
	return encodeCorpusOnce(t, &defaultRunOnce, &defaultRun, features.Default())
}

// encodeCorpusAll encodes with default,global_var,true_signature, as the
// reference's amd64.all.btf.
func encodeCorpusAll(t *testing.T) *corpusRun {
	set := features.Default()
	set.GlobalVar, set.TrueSignature = true, true
	return encodeCorpusOnce(t, &allRunOnce, &allRun, set)
}

func encodeCorpusOnce(t *testing.T, once *sync.Once, run *corpusRun, set features.Set) *corpusRun {
	t.Helper()
	if testing.Short() {
		t.Skip("encoding the corpus kernel takes seconds; skipped with -short")
	}
	path := corpus.Vmlinux(t)
	once.Do(func() {
		res, err := Encode(path, Options{Features: set, Jobs: 2})
		if err != nil {
			run.err = err
			return
		}
		raw, err := res.Types.Marshal(binary.LittleEndian)
		*run = corpusRun{res: res, raw: raw, err: err}
	})
	if run.err != nil {
		t.Fatalf("encode %s: %v", path, run.err)
	}
	return run
}

func compareWithReference(t *testing.T, raw []byte, ref string) *btfdiff.Report {
	t.Helper()
	ours, err := btfdiff.FromBytes("btfgate", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	refSet, err := btfdiff.Load(corpus.ReferenceFile(t, ref), "")
	if err != nil {
		t.Fatal(err)
	}
	return btfdiff.Compare(refSet, ours)
}

// checkKinds asserts that the reference has want[k] types of kind k and
// that ours equal them as a multiset of contents.
func checkKinds(t *testing.T, rep *btfdiff.Report, want map[string]int) {
	t.Helper()
	seen := map[string]bool{}
	for _, row := range rep.Kinds {
		k := row.Kind.String()
		n, ok := want[k]
		if !ok {
			continue
		}
		seen[k] = true
		if row.A != n {
			t.Errorf("reference has %d %s, expected %d", row.A, k, n)
		}
		if row.B != row.A || row.OnlyA != 0 || row.OnlyB != 0 {
			t.Errorf("%s: reference %d, ours %d; %d only in reference, %d only in ours%s",
				k, row.A, row.B, row.OnlyA, row.OnlyB, examples(rep, k))
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no %s types on either side", k)
		}
	}
}

// TestCorpusTypesMatchReference: every non-function kind of our kernel BTF
// equals pahole's reference as a multiset of contents (named types
// referenced by name).
func TestCorpusTypesMatchReference(t *testing.T) {
	run := encodeCorpusDefault(t)
	rep := compareWithReference(t, run.raw, "amd64.default.btf")
	checkKinds(t, rep, map[string]int{
		"STRUCT": 8721, "UNION": 1434, "ENUM": 1849, "ENUM64": 7, "TYPEDEF": 1840, "FWD": 114,
		"PTR": 12403, "ARRAY": 2997, "CONST": 2735, "VOLATILE": 20, "RESTRICT": 2, "INT": 15, "FLOAT": 2,
	})
}

// TestCorpusFunctionsMatchReference: the same FUNCs (names and prototypes)
// as the reference, and for every function the reference skipped, the same
// final reason; likewise pahole's prototype-mismatch messages.
func TestCorpusFunctionsMatchReference(t *testing.T) {
	run := encodeCorpusDefault(t)
	rep := compareWithReference(t, run.raw, "amd64.default.btf")
	checkKinds(t, rep, map[string]int{"FUNC": 43913, "FUNC_PROTO": 23616})

	final, mismatch := readSkipLog(t)
	if len(final) != 898 {
		t.Fatalf("skip log has %d final reasons, expected 898", len(final))
	}
	ours := map[string]string{}
	oursMismatch := map[string]string{}
	for i, f := range run.res.Functions {
		if d := run.res.Decisions[i]; !d.Include {
			ours[f.Name] = d.Final
		}
		if f.Mismatch != "" {
			oursMismatch[f.Name] = f.Mismatch
		}
	}
	diffMaps(t, "final skip reason", final, ours)
	diffMaps(t, "prototype mismatch", mismatch, oursMismatch)
}

// TestCorpusVariablesMatchReference: the 381 percpu VARs and their DATASEC.
func TestCorpusVariablesMatchReference(t *testing.T) {
	run := encodeCorpusDefault(t)
	rep := compareWithReference(t, run.raw, "amd64.default.btf")
	checkKinds(t, rep, map[string]int{"VAR": 381, "DATASEC": 1})
	if !rep.Equal() {
		t.Errorf("the whole output differs from amd64.default.btf: %d keys only in the reference, %d only in ours",
			len(rep.OnlyA), len(rep.OnlyB))
	}
}

// TestCorpusAllFeaturesMatchReference: with global_var and true_signature
// the whole output equals amd64.all.btf without the DATASEC entries that
// overlap an entry before them (refbtf.WithoutOverlaps), and the encode
// says how many it dropped.
func TestCorpusAllFeaturesMatchReference(t *testing.T) {
	run := encodeCorpusAll(t)
	rep, dropped := compareWithFixedReference(t, run.raw, corpus.ReferenceFile(t, "amd64.all.btf"))
	checkKinds(t, rep, map[string]int{"FUNC": 44167, "FUNC_PROTO": 23796, "VAR": 23709, "DATASEC": 13,
		"STRUCT": 8721, "PTR": 12403})
	if !rep.Equal() {
		t.Errorf("the whole output differs from amd64.all.btf without %d overlapping entries: %d keys only in the reference, %d only in ours%s",
			len(dropped), len(rep.OnlyA), len(rep.OnlyB), examples(rep, "FUNC")+examples(rep, "VAR")+examples(rep, "DATASEC"))
	}
	checkDropped(t, run.res, dropped)
}

// compareWithFixedReference compares raw with the reference BTF at path
// less its overlapping DATASEC entries, and returns those entries.
func compareWithFixedReference(t *testing.T, raw []byte, path string) (*btfdiff.Report, []refbtf.Entry) {
	t.Helper()
	ref, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fixed, dropped, err := refbtf.WithoutOverlaps(ref)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ours, err := btfdiff.FromBytes("btfgate", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	refSet, err := btfdiff.FromBytes(path, fixed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return btfdiff.Compare(refSet, ours), dropped
}

// checkDropped: the encode counted and named the entries the reference
// has and the output must not.
func checkDropped(t *testing.T, res *Result, dropped []refbtf.Entry) {
	t.Helper()
	if res.DroppedEntries != len(dropped) {
		t.Errorf("the encode dropped %d DATASEC entries, the reference has %d that overlap", res.DroppedEntries, len(dropped))
	}
	if len(dropped) == 0 {
		return
	}
	warned := false
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, fmt.Sprintf("%d DATASEC entries dropped", len(dropped))) &&
			strings.Contains(w, dropped[0].Section+" "+dropped[0].Var+" at ") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning names the %d dropped entries (first %s %s): %q", len(dropped), dropped[0].Section, dropped[0].Var, res.Warnings)
	}
}

const skipPrefix = " : skipping BTF encoding of function due to "

// readSkipLog reads the reference's -V skip lines: function -> final reason
// and function -> mismatch message.
func readSkipLog(t *testing.T) (final, mismatch map[string]string) {
	t.Helper()
	return readSkipLogFile(t, corpus.ReferenceFile(t, "amd64.default.skips.log"))
}

// readSkipLogFile reads pahole -V skip lines from path.
func readSkipLogFile(t *testing.T, path string) (final, mismatch map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	finals := map[string]bool{
		"ambiguous address": true, "optimized parameters": true, "reordered parameters": true,
		"uncertain parameter location": true, "inconsistet prototype": true,
		"unexpected register usage for parameter": true,
	}
	final, mismatch = map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, reason, ok := strings.Cut(sc.Text(), skipPrefix)
		if !ok {
			continue
		}
		if finals[reason] {
			final[name] = reason
		} else {
			mismatch[name] = reason
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return final, mismatch
}

func diffMaps(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	var bad []string
	for name, w := range want {
		if g := got[name]; g != w {
			bad = append(bad, fmt.Sprintf("%s: reference %q, ours %q", name, w, g))
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			bad = append(bad, fmt.Sprintf("%s: reference none, ours %q", name, g))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		if len(bad) > 20 {
			bad = append(bad[:20], "...")
		}
		t.Errorf("%s: %d differences from the reference (of %d):\n  %s", what, len(bad), len(want), strings.Join(bad, "\n  "))
	}
}

func examples(rep *btfdiff.Report, kind string) string {
	var b strings.Builder
	n := 0
	for _, d := range rep.OnlyA {
		if d.Kind.String() == kind && n < 5 {
			fmt.Fprintf(&b, "\n  only in reference (x%d): %.300s", d.Count, d.Key)
			n++
		}
	}
	n = 0
	for _, d := range rep.OnlyB {
		if d.Kind.String() == kind && n < 5 {
			fmt.Fprintf(&b, "\n  only in ours (x%d): %.300s", d.Count, d.Key)
			n++
		}
	}
	return b.String()
}

// TestCorpusDefaultPolicyMatchesGoModel: the Rego default policies decide
// every kernel function as the Go statement of pahole's rules does, and
// report the same final reason.
func TestCorpusDefaultPolicyMatchesGoModel(t *testing.T) {
	for name, run := range map[string]*corpusRun{"default": encodeCorpusDefault(t)} {
		set := features.Default()
		n := 0
		for i := range run.res.Functions {
			f := &run.res.Functions[i]
			want := paholeReason(f, set)
			d := run.res.Decisions[i]
			if d.Final != want || d.Include != (want == "") {
				if n < 10 {
					t.Errorf("%s: %s: policy include=%v final=%q, Go model %q", name, f.Name, d.Include, d.Final, want)
				}
				n++
			}
		}
		if n > 0 {
			t.Errorf("%s: %d of %d decisions differ", name, n, len(run.res.Functions))
		}
	}
}
