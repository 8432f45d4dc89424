package functions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/convert"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// fixtureDir holds the committed C fixtures (testdata/fixtures/README.md).
const fixtureDir = "../testdata/fixtures"

// saved is a fixture's functions as an encode has them before grouping.
type saved struct {
	in     *loader.Input
	types  *btf.Types // every unit's types, spliced in order
	elf    *loader.ElfFuncs
	states []State // every unit's, global, in unit order
}

// save walks and converts each unit of fixture file in order, splices it
// and saves and globalizes its function states with set's features, as an
// encode does on one worker. Inputs whose units pahole merges (LTO) are
// not fixtures of this package.
func save(t *testing.T, file string, set features.Set) *saved {
	t.Helper()
	path := filepath.Join(fixtureDir, file)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("fixture %s is missing (it is committed): %v", file, err)
	}
	in, err := loader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	if in.Merge {
		t.Fatalf("%s: its units are merged (LTO)", file)
	}
	syms, err := in.ELF.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	elf := loader.CollectElfFuncs(syms)
	if err := loader.MarkBTFIDs(in.ELF, syms, elf); err != nil {
		t.Fatal(err)
	}
	arch := loader.ArchFor(in.ELF.Machine)
	walker := loader.NewWalker(in.DWARF, in.ELF.ByteOrder, loader.WalkOptions{TypeTags: set.TypeTag,
		DeclTags: set.DeclTag, TrueSignature: set.TrueSignature, Arch: arch})
	strs := btf.IndexStringSections(append([][]byte{in.DebugStr, in.DebugLineStr}, in.PartStrings...)...)
	conv := convert.New(convert.Options{Float: set.Float, Enum64: set.Enum64}, strs)
	s := &saved{in: in, types: btf.NewTypes(btf.NewStrings()), elf: elf}
	splicer := btf.NewSplicer(s.types, strs)
	o := &Options{Arch: arch, TrueSignature: set.TrueSignature, Relocatable: in.ELF.Type == elffile.ET_REL}
	for i := range in.Units {
		u := &in.Units[i]
		if u.UnitType != dwarf.UTCompile && u.UnitType != dwarf.UTPartial {
			continue
		}
		var tab loader.TypeTable
		if err := walker.Walk(u, &tab); err != nil {
			t.Fatalf("%s: unit %d: %v", file, i, err)
		}
		frag, err := conv.Convert(&tab, nil, nil)
		if err != nil {
			t.Fatalf("%s: unit %d: %v", file, i, err)
		}
		states := Save(&tab, i, elf, o)
		shift, _, err := splicer.Add(frag)
		if err != nil {
			t.Fatalf("%s: unit %d: %v", file, i, err)
		}
		Globalize(states, shift, splicer.Intern)
		s.states = append(s.states, states...)
	}
	return s
}

// group groups the saved states with set's features.
func (s *saved) group(set features.Set) *Groups {
	return Group(s.types, s.elf, [][]State{s.states}, set)
}
