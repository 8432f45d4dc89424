package encode

// Tests of pahole's clang parameter semantics on the clang_abi fixtures
// (testdata/fixtures/clang_abi.c, built with clang 19 and gcc): the BTF and
// the skip messages of the reference pahole 1.31, committed by
// testdata/fixtures/build.sh expected131, are the expectation.

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/features"
)

// clangABIObjects are the clang_abi objects README.md lists.
var clangABIObjects = []string{
	"clang_abi.clang19-dwarf4.o",
	"clang_abi.clang19-dwarf5.o",
	"clang_abi.clang19-dwarf5.elf",
	"clang_abi.gcc-dwarf5.elf",
}

// clangABISets are the feature sets of expected/*.pahole-1.31.SET.* (and
// groups/expected/).
var clangABISets = []struct{ name, features string }{
	{"default", "default"},
	{"true_signature", "default,true_signature"},
}

// TestFixtureClangABIPahole131 encodes each clang_abi object with each
// feature set and compares the BTF by content, and the -V lines about
// functions in order, with what pahole 1.31 wrote.
func TestFixtureClangABIPahole131(t *testing.T) {
	for _, obj := range clangABIObjects {
		checkPahole131(t, obj)
	}
}

// TestFixtureGroupsPahole131 does the same for the groups programs
// (testdata/fixtures/groups/README.md): functions of one name in several
// units.
func TestFixtureGroupsPahole131(t *testing.T) {
	for _, obj := range []string{"groups/gcc.exe", "groups/clang19.exe"} {
		checkPahole131(t, obj)
	}
}

// checkPahole131 encodes fixture obj with each of clangABISets and
// compares the BTF and the -V lines about functions with pahole 1.31's,
// in expected/ beside obj.
func checkPahole131(t *testing.T, obj string) {
	for _, set := range clangABISets {
		t.Run(obj+"/"+set.name, func(t *testing.T) {
			fs, unknown, err := features.Parse(set.features, true)
			if err != nil || len(unknown) > 0 {
				t.Fatalf("features %q: %v %v", set.features, err, unknown)
			}
			base := filepath.Join(fixtureDir, filepath.Dir(obj), "expected", filepath.Base(obj)+".pahole-1.31."+set.name)
			v := encodeFixture(t, obj, fs)
			samePahole131BTF(t, v.res, base+".btf")
			want, err := os.ReadFile(base + ".log")
			if err != nil {
				t.Fatal(err)
			}
			if got := skipLines(v.res); got != string(want) {
				t.Errorf("skip messages differ from pahole 1.31's -V:\n got:\n%s want:\n%s", got, want)
			}
		})
	}
}

// samePahole131BTF fails t unless res's BTF has the content of pahole
// 1.31's in file want.
func samePahole131BTF(t *testing.T, res *Result, want string) {
	t.Helper()
	raw, err := res.Types.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := btfdiff.FromBytes("btfgate", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := btfdiff.Load(want, "")
	if err != nil {
		t.Fatal(err)
	}
	if rep := btfdiff.Compare(theirs, ours); !rep.Equal() {
		var b strings.Builder
		_ = rep.WriteText(&b, 40)
		t.Errorf("BTF differs from pahole 1.31's (A = pahole, B = btfgate):\n%s", b.String())
	}
}

// skipLines are the lines pahole -V prints about functions, in its order:
// per group in name order, the prototype mismatch found while combining,
// then the final reason of a group left out.
func skipLines(res *Result) string {
	var b strings.Builder
	for i, f := range res.Functions {
		if f.Mismatch != "" {
			fmt.Fprintf(&b, "%s : skipping BTF encoding of function due to %s\n", f.Name, f.Mismatch)
		}
		if d := res.Decisions[i]; !d.Include {
			fmt.Fprintf(&b, "%s : skipping BTF encoding of function due to %s\n", f.Name, d.Final)
		}
	}
	return b.String()
}

// TestFixtureClangABIFacts checks the facts that say why on the clang 19
// executable: which ABI walk ran, the register slots each parameter got,
// and the member the true signature passes.
func TestFixtureClangABIFacts(t *testing.T) {
	type param struct {
		name           string
		slot, slots    int
		expected       int
		member         string
		passedAsMember bool
	}
	cases := []struct {
		set    string
		fn     string
		walk   string
		params []param
	}{
		{"default", "global_pair_mid", "registers", []param{{"a", 0, 1, 5, "", false}, {"p", 1, 2, 4, "", false}, {"c", 3, 1, 2, "", false}}},
		{"default", "global_mem_first", "registers", []param{{"b", -1, 0, -1, "", false}, {"x", 0, 1, 5, "", false}, {"y", 1, 1, 4, "", false}}},
		{"default", "agg_first_member", "locations", []param{{"a", 0, 2, 5, "f1", false}, {"b", 2, 2, 1, "", false}, {"i", 4, 1, 8, "", false}}},
		{"true_signature", "agg_first_member", "true_signature", []param{{"a", 0, 1, 5, "f1", true}, {"b", 1, 2, 4, "", false}, {"i", 3, 1, 2, "", false}}},
		{"true_signature", "agg_whole", "true_signature", []param{{"a", 0, 2, 5, "", false}, {"dead", -1, 0, -1, "", false}, {"i", 2, 1, 1, "", false}}},
		{"true_signature", "global_dead", "registers", []param{{"a", 0, 1, 5, "", false}, {"b", 1, 1, 4, "", false}, {"c", 2, 1, 1, "", false}}},
	}
	results := map[string]*Result{}
	for _, c := range cases {
		res := results[c.set]
		if res == nil {
			spec := "default"
			if c.set != "default" {
				spec = "default," + c.set
			}
			fs, _, err := features.Parse(spec, true)
			if err != nil {
				t.Fatal(err)
			}
			if res, err = Encode(fixturePath(t, "clang_abi.clang19-dwarf5.elf"), Options{Features: fs, Jobs: 1, Detail: true}); err != nil {
				t.Fatal(err)
			}
			results[c.set] = res
		}
		found := false
		for _, f := range res.Functions {
			if f.Name != c.fn {
				continue
			}
			found = true
			in := f.Canonical
			if !in.Clang || in.ABIWalk != c.walk {
				t.Errorf("%s [%s]: clang=%v abi_walk=%q, want true %q", c.fn, c.set, in.Clang, in.ABIWalk, c.walk)
			}
			var got []param
			for _, p := range in.Params {
				got = append(got, param{p.Name, int(p.ABISlot), int(p.ABISlots), int(p.ExpectedReg), p.TrueSigMember, p.PassedAsMember})
			}
			if fmt.Sprint(got) != fmt.Sprint(c.params) {
				t.Errorf("%s [%s]: parameters (name slot slots expected_reg member passed) %v, want %v", c.fn, c.set, got, c.params)
			}
		}
		if !found {
			t.Errorf("%s: no such function group", c.fn)
		}
	}
}
