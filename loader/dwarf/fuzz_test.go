package dwarf

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/seed/*.bin from freshly compiled objects")

// seedConfigs are the objects whose DWARF sections are committed as fuzz
// seeds (see TestUpdateSeeds).
var seedConfigs = []struct {
	cc    string
	flags []string
}{
	{"gcc", []string{"-gdwarf-2", "-O2"}},
	{"gcc", []string{"-gdwarf-4", "-O2"}},
	{"gcc", []string{"-gdwarf-5", "-O2"}},
	{"gcc", []string{"-gdwarf-5", "-gdwarf64", "-O2"}},
	{"clang", []string{"-gdwarf-5", "-O2"}},
}

// TestUpdateSeeds rewrites the committed fuzz seeds when run with
// -update-seeds.
func TestUpdateSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("run with -update-seeds to rewrite testdata/seed")
	}
	if err := os.MkdirAll("testdata/seed", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range seedConfigs {
		path := compile(t, c.cc, testSource, c.flags...)
		name := c.cc + strings.ReplaceAll(strings.Join(c.flags, ""), "-", "_") + ".bin"
		if err := os.WriteFile(filepath.Join("testdata/seed", name), packSections(sectionsOf(t, path)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzReader decodes arbitrary section contents (see packSections): unit
// headers, abbreviations, every DIE, location list and expression. Any
// outcome but a panic, a hang or a non-DecodeError error is fine.
func FuzzReader(f *testing.F) {
	for _, s := range seedSections(f) {
		f.Add(packSections(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := New(unpackSections(b))
		if err != nil {
			return
		}
		walkAll(t, d)
	})
}
