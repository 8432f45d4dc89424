package functions

// The functions of fixtures against what the reference pahole 1.31
// encoded for them (testdata/fixtures/build.sh expected131 and groups):
// its -V lines and pfunct's prototypes of its BTF. The clang_abi objects
// (clang_abi.c, built with clang 19 and gcc) have pahole's clang parameter
// semantics; the groups programs (groups/README.md) functions of one name
// in several units: inline and out-of-line instances, prototypes that
// differ in parameter count, a parameter's type or the return type, clones.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/features"
)

// finalReasons are pahole 1.31's messages for a function it leaves out
// (spec §2.8, §6.1), "inconsistet" as it spells it; its other lines are
// the prototype mismatches it finds while combining a group.
var finalReasons = map[string]bool{
	"ambiguous address": true, "optimized parameters": true, "reordered parameters": true,
	"uncertain parameter location": true, "inconsistet prototype": true,
	"unexpected register usage for parameter": true,
}

// TestPahole131 saves and groups the functions of each object with each
// feature set pahole 1.31 encoded it with, and checks
// them against its output: the prototype comparison finds the mismatches
// pahole printed, every function pahole skipped is a group, and the
// instance emitted for each other group (the true-signature one under its
// clone's name, else the canonical one) has the prototype pfunct prints
// for pahole's FUNC.
func TestPahole131(t *testing.T) {
	const due = " : skipping BTF encoding of function due to "
	for _, obj := range []string{"clang_abi.clang19-dwarf4.o", "clang_abi.clang19-dwarf5.o",
		"clang_abi.clang19-dwarf5.elf", "clang_abi.gcc-dwarf5.elf", "groups/gcc.exe", "groups/clang19.exe"} {
		for _, set := range []struct{ name, features string }{{"default", "default"}, {"true_signature", "default,true_signature"}} {
			t.Run(obj+"/"+set.name, func(t *testing.T) {
				fs, unknown, err := features.Parse(set.features, true)
				if err != nil || len(unknown) > 0 {
					t.Fatalf("features %q: %v %v", set.features, err, unknown)
				}
				base := filepath.Join(fixtureDir, filepath.Dir(obj), "expected", filepath.Base(obj)+".pahole-1.31."+set.name)
				log, err := os.ReadFile(base + ".log") // may be empty
				if err != nil {
					t.Fatal(err)
				}
				funcs, err := os.ReadFile(base + ".funcs")
				if err != nil {
					t.Fatal(err)
				}
				gs := save(t, obj, fs).group(fs)
				fns := gs.Facts(func(uint32) string { return "" }, false)
				gs.AddPrototypes(fns)
				byName := map[string]int{}
				for i := range fns {
					byName[fns[i].Name] = i
				}
				skipped := map[string]bool{}
				var mismatches []string
				for _, line := range strings.Split(string(log), "\n") {
					if line == "" {
						continue
					}
					name, why, ok := strings.Cut(line, due)
					if !ok {
						t.Fatalf("%s.log: %q is no skip line", base, line)
					}
					_, ok = byName[name]
					if !ok {
						t.Errorf("pahole skipped %s (%s), which is no group", name, why)
						continue
					}
					if !finalReasons[why] {
						mismatches = append(mismatches, name+": "+why)
						continue
					}
					if skipped[name] {
						t.Errorf("pahole skipped %s twice", name)
					}
					skipped[name] = true
				}
				var found []string
				for _, f := range fns {
					if f.Mismatch != "" {
						found = append(found, f.Name+": "+f.Mismatch)
					}
				}
				if !slices.Equal(found, mismatches) {
					t.Errorf("prototype mismatches %q, pahole printed %q", found, mismatches)
				}
				var got []string
				for _, f := range fns {
					if skipped[f.Name] {
						continue
					}
					proto := f.Canonical.Prototype
					if f.TrueSig != nil {
						proto = f.TrueSig.Prototype
					}
					got = append(got, proto+";")
				}
				slices.Sort(got)
				var want []string
				for _, line := range strings.Split(strings.TrimSuffix(string(funcs), "\n"), "\n") {
					// pfunct prints a qualified struct parameter with two
					// spaces before its name.
					want = append(want, strings.Join(strings.Fields(line), " "))
				}
				if !slices.Equal(got, want) {
					t.Errorf("the functions pahole encodes, emitted:\n%s\npfunct on pahole's BTF:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}
