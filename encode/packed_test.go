package encode

// Tests of pahole's packed-struct inference ("uncertain parameter
// location") on the committed fixtures in testdata/fixtures/packed (its
// README.md): packed.c built for i386 and x86_64 by gcc and clang-19,
// DWARF 4 and 5. The expected BTF and skip lists are what the reference
// pahole 1.31 wrote for each object (packed/expected, written by
// build.sh packed).

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/features"
)

// packedDir holds the packed-struct fixtures.
const packedDir = fixtureDir + "/packed"

// packedObjects are the objects build.sh packed builds.
func packedObjects() []string {
	var objs []string
	for _, cc := range []string{"gcc", "clang"} {
		for _, arch := range []string{"i386", "x86_64"} {
			for _, v := range []string{"4", "5"} {
				objs = append(objs, "packed."+cc+"-"+arch+"-dwarf"+v+".o")
			}
		}
	}
	return objs
}

// packedFeatureSets are the feature sets packed/expected has output for,
// by the name build.sh gives them.
func packedFeatureSets() map[string]features.Set {
	all := features.Default()
	all.GlobalVar, all.TrueSignature = true, true
	return map[string]features.Set{"default": features.Default(), "all": all}
}

// TestPackedFixturesMatchPahole: for each object and feature set, the BTF
// equals the reference pahole's by content, and the functions skipped and
// their reasons are pahole's.
func TestPackedFixturesMatchPahole(t *testing.T) {
	for _, obj := range packedObjects() {
		for name, set := range packedFeatureSets() {
			t.Run(obj+"/"+name, func(t *testing.T) {
				expected := filepath.Join(packedDir, "expected", obj+"."+name)
				res, err := Encode(fixturePath(t, "packed/"+obj), Options{Features: set, Jobs: 2})
				if err != nil {
					t.Fatal(err)
				}
				raw, err := res.Types.Marshal(binary.LittleEndian)
				if err != nil {
					t.Fatal(err)
				}
				rep, dropped := compareWithFixedReference(t, raw, expected+".btf")
				if !rep.Equal() {
					t.Errorf("BTF differs from pahole 1.31's %s.btf (less %d overlapping DATASEC entries):\n%s",
						expected, len(dropped), reportText(t, rep))
				}
				checkDropped(t, res, dropped)
				want := readPackedSkips(t, expected+".skips")
				got := map[string]string{}
				for i, f := range res.Functions {
					if d := res.Decisions[i]; !d.Include {
						got[f.Name] = d.Final
					}
				}
				diffMaps(t, "skip reason", want, got)
			})
		}
	}
}

// TestPackedFixturesCoverage: the reference decides the fixture's cases
// as packed.c says, so that TestPackedFixturesMatchPahole tests them:
// printf_spec's bitfields are not packed anywhere; on i386 an 8-byte
// member at a 4-byte offset is, and a struct is marked packed by the
// holed struct holding it only when asked after it.
func TestPackedFixturesCoverage(t *testing.T) {
	const uncertain = "uncertain parameter location"
	for _, obj := range packedObjects() {
		skips := readPackedSkips(t, filepath.Join(packedDir, "expected", obj+".default.skips"))
		i386 := strings.Contains(obj, "i386")
		check := func(fn string, skipped bool) {
			t.Helper()
			if got := skips[fn] == uncertain; got != skipped {
				t.Errorf("%s: pahole 1.31 skipped %s for an uncertain location: %v, packed.c says %v", obj, fn, got, skipped)
			}
		}
		for _, fn := range []string{"f_spec", "f_tailbf", "f_pad", "f_ebf", "f_ptrs", "f_inner3", "f_ts_typedef", "f_ts_const"} {
			check(fn, false)
		}
		for _, fn := range []string{"f_pk", "f_holds_pk", "f_pk_outer3"} {
			check(fn, true)
		}
		for _, fn := range []string{"f_ts", "f_ts_first", "f_at4", "f_bf64", "f_arr", "f_withunion", "f_nest"} {
			check(fn, i386)
		}
		// One of each pair is asked after the holed struct that marks it.
		for _, pair := range [][2]string{{"f_one8_before", "f_one8_after"}, {"f_inner2_before", "f_inner2_after"}} {
			n := 0
			for _, fn := range pair {
				if skips[fn] == uncertain {
					n++
				}
			}
			want := 1
			if pair[0] == "f_one8_before" && !i386 {
				want = 0
			}
			if n != want {
				t.Errorf("%s: pahole 1.31 skipped %d of %v, packed.c says %d", obj, n, pair, want)
			}
		}
	}
}

// readPackedSkips reads an expected .skips file: "NAME REASON" lines.
func readPackedSkips(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("expected output %s is missing (it is committed; build.sh packed writes it): %v", path, err)
	}
	defer f.Close()
	skips := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, reason, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("%s: line %q is not NAME REASON", path, sc.Text())
		}
		skips[name] = reason
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return skips
}
