package loader

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/loader/dwarf"
)

// ltoFixtures holds the LTO fixtures (testdata/fixtures/lto/README.md).
const ltoFixtures = "../testdata/fixtures/lto"

func openLTO(t *testing.T, name string) *Input {
	t.Helper()
	in, err := Open(filepath.Join(ltoFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

// TestMergeDecision: pahole's cus__merging_cu on each kind of input.
func TestMergeDecision(t *testing.T) {
	cases := []struct {
		file  string
		merge bool
		note  LTONote
	}{
		{"lto/thin.exe", true, LTONoteAbsent}, // DW_FORM_ref_addr
		{"lto/full.exe", true, LTONoteAbsent},
		{"lto/thin-r.o", true, LTONoteAbsent},
		{"lto/mod-thin-r.o", true, LTONoteAbsent},
		{"lto/note0-thin.exe", false, LTONoteOff}, // the note wins over ref_addr
		{"lto/note1-plain.exe", true, LTONoteOn},  // and merges without it
		{"lto/gcc-dwz.exe", false, LTONoteAbsent}, // dwz's partial units: Groups
		{"lto/gcc.exe", false, LTONoteAbsent},
		{"types.clang-dwarf5.o", false, LTONoteAbsent},
		{"types.gcc-dwarf4.o", false, LTONoteAbsent},
	}
	for _, c := range cases {
		in, err := Open(filepath.Join("../testdata/fixtures", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if in.Merge != c.merge || in.Note != c.note {
			t.Errorf("%s: merge %v note %d, want merge %v note %d", c.file, in.Merge, in.Note, c.merge, c.note)
		}
		in.Close()
	}
}

// TestMergeDecisionCorpus: the gcc kernel and its modules carry the note
// saying 0: they are walked unit by unit, without reading abbreviations.
func TestMergeDecisionCorpus(t *testing.T) {
	paths := []string{corpus.Vmlinux(t), corpus.Module(t, "ext4")}
	for _, p := range paths {
		in, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if in.Merge || in.Note != LTONoteOff {
			t.Errorf("%s: merge %v note %d, want no merge, note 0", p, in.Merge, in.Note)
		}
		in.Close()
	}
}

// TestLTONoteParsing: notes of other owners and types are passed over, a
// section aligned to 8 pads to 8, a truncated note ends the section.
func TestLTONoteParsing(t *testing.T) {
	in := openLTO(t, "note1-plain.exe")
	if got, err := ltoNote(in.ELF); err != nil || got != LTONoteOn {
		t.Fatalf("ltoNote = %d, %v; want on", got, err)
	}
	in0 := openLTO(t, "note0-thin.exe")
	if got, err := ltoNote(in0.ELF); err != nil || got != LTONoteOff {
		t.Fatalf("ltoNote = %d, %v; want off", got, err)
	}
}

// TestMergedWalkResolvesAcrossUnits: in the merged table of thin.exe the
// members, parameters and return types whose types are DIEs of other
// units resolve, and
// walking one of its units alone is an error that names the DIE and the
// reference.
func TestMergedWalkResolvesAcrossUnits(t *testing.T) {
	in := openLTO(t, "thin.exe")
	w := NewWalker(in.DWARF, in.ELF.ByteOrder, WalkOptions{Arch: ArchFor(in.ELF.Machine)})
	var tab TypeTable
	if err := w.WalkMerged(in.Units, &tab, nil); err != nil {
		t.Fatal(err)
	}
	if tab.Unit != &in.Units[0] || !strings.Contains(tab.Unit.Producer, "clang") {
		t.Errorf("the merged table has unit %p (%q), want the first, %p", tab.Unit, tab.Unit.Producer, &in.Units[0])
	}
	// ThinLTO's backend for lto_b.c emits a second unit for lto_a.c's
	// lto_dev_open it imported, whose DIEs refer to lto_b.c's types.
	cross := 0
	for _, f := range tab.Funcs {
		fu := unitIndex(in, f.Offset)
		if f.Ret != 0 && unitIndex(in, tab.Entries[f.Ret].Offset) != fu {
			cross++
		}
		for _, p := range tab.FuncParams[f.First : f.First+f.Count] {
			if p.Type != 0 && unitIndex(in, tab.Entries[p.Type].Offset) != fu {
				cross++
			}
		}
	}
	for _, en := range tab.Entries[1:] {
		if en.Tag != dwarf.TagStructureType {
			continue
		}
		for _, m := range tab.Members[en.First : en.First+en.Count] {
			if m.Type != 0 && unitIndex(in, tab.Entries[m.Type].Offset) != unitIndex(in, en.Offset) {
				cross++
			}
		}
	}
	if cross < 5 {
		t.Errorf("%d function and member types resolve to DIEs of another unit, want at least 5", cross)
	}
	for _, en := range tab.Entries[1:] {
		if en.Tag != dwarf.TagStructureType || en.Name != "lto_dev" {
			continue
		}
		for _, m := range tab.Members[en.First : en.First+en.Count] {
			if m.Type == 0 {
				t.Errorf("struct lto_dev at 0x%x: member %s is void", en.Offset, m.Name)
			}
		}
	}

	var errs []string
	for i := range in.Units {
		if err := w.Walk(&in.Units[i], &tab); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) == 0 {
		t.Fatal("every unit of thin.exe walks alone without an error")
	}
	for _, e := range errs {
		if !strings.Contains(e, "DIE 0x") || !strings.Contains(e, "refers to 0x") || !strings.Contains(e, "outside its unit") {
			t.Errorf("error %q does not name the DIE and its reference", e)
		}
	}
}

// TestMergedWalkMatchesUnitWalks: note1-plain.exe is merged (its note)
// but its units do not refer to each other, so every function's facts in
// the merged table equal those of the unit's own walk: locations decoded
// with their own unit's bases, the addresses of variables too.
func TestMergedWalkMatchesUnitWalks(t *testing.T) {
	in := openLTO(t, "note1-plain.exe")
	w := NewWalker(in.DWARF, in.ELF.ByteOrder, WalkOptions{Arch: ArchFor(in.ELF.Machine)})
	var tab TypeTable
	if err := w.WalkMerged(in.Units, &tab, nil); err != nil {
		t.Fatal(err)
	}
	merged := funcFacts(&tab)
	vars := varFacts(&tab)
	var single []string
	var singleVars []string
	for i := range in.Units {
		var ut TypeTable
		if err := w.Walk(&in.Units[i], &ut); err != nil {
			t.Fatal(err)
		}
		single = append(single, funcFacts(&ut)...)
		singleVars = append(singleVars, varFacts(&ut)...)
	}
	if strings.Join(merged, "\n") != strings.Join(single, "\n") {
		t.Errorf("merged walk:\n%s\nunit walks:\n%s", strings.Join(merged, "\n"), strings.Join(single, "\n"))
	}
	if strings.Join(vars, "\n") != strings.Join(singleVars, "\n") {
		t.Errorf("merged walk:\n%s\nunit walks:\n%s", strings.Join(vars, "\n"), strings.Join(singleVars, "\n"))
	}
	locs := 0
	for _, p := range tab.FuncParams {
		if p.HasLoc && p.LocReg >= 0 {
			locs++
		}
	}
	if locs < 10 {
		t.Errorf("only %d parameters have a register location: the fixture tests little", locs)
	}
}

// TestMergedWalkSkipsUnits: a unit the skip function leaves out adds
// nothing, and the references into it read as void and are counted.
func TestMergedWalkSkipsUnits(t *testing.T) {
	in := openLTO(t, "thin.exe")
	w := NewWalker(in.DWARF, in.ELF.ByteOrder, WalkOptions{Arch: ArchFor(in.ELF.Machine)})
	var all, some TypeTable
	if err := w.WalkMerged(in.Units, &all, nil); err != nil {
		t.Fatal(err)
	}
	if w.SkippedRefs() != 0 {
		t.Errorf("%d skipped references without a skip", w.SkippedRefs())
	}
	// The third unit (lto_a.c's code imported into lto_b.c's) refers to
	// the second's types.
	skipped := &in.Units[1]
	if err := w.WalkMerged(in.Units, &some, func(u *dwarf.Unit) bool { return u == skipped }); err != nil {
		t.Fatal(err)
	}
	if w.SkippedRefs() == 0 {
		t.Error("no reference into the skipped second unit")
	}
	if some.Len() >= all.Len() || len(some.Funcs) >= len(all.Funcs) {
		t.Errorf("skipping %s: %d types, %d functions; without: %d, %d", skipped.Name, some.Len(), len(some.Funcs), all.Len(), len(all.Funcs))
	}
}

func unitIndex(in *Input, off uint64) int {
	for i := range in.Units {
		if in.Units[i].Offset <= off && off < in.Units[i].End {
			return i
		}
	}
	return -1
}

// describeType spells a type entry for tests: "* struct NAME" and so on.
func describeType(t *TypeTable, id TypeID) string {
	var parts []string
	for n := 0; id != 0 && n < 8; n++ {
		en := &t.Entries[id]
		switch en.Tag {
		case dwarf.TagPointerType:
			parts = append(parts, "*")
		case dwarf.TagStructureType:
			return strings.Join(append(parts, "struct "+en.Name), " ")
		default:
			return strings.Join(append(parts, en.Name), " ")
		}
		id = en.Type
	}
	return strings.Join(append(parts, "void"), " ")
}

// funcFacts lists every function's name, flags and parameter facts.
func funcFacts(t *TypeTable) []string {
	var out []string
	for _, f := range t.Funcs {
		s := fmt.Sprintf("%s %#x flags=%#x ret=%s", f.Name, f.Offset, f.Flags, describeType(t, f.Ret))
		for _, p := range t.FuncParams[f.First : f.First+f.Count] {
			s += fmt.Sprintf(" (%s %s loc=%v reg=%d stack=%v const=%v size=%d)", p.Name, describeType(t, p.Type),
				p.HasLoc, p.LocReg, p.LocStack, p.LocConst, p.TypeSize)
		}
		out = append(out, s)
	}
	return out
}

func varFacts(t *TypeTable) []string {
	var out []string
	for _, v := range t.Vars {
		out = append(out, fmt.Sprintf("%s %#x %s addr=%#x flags=%#x", v.Name, v.Offset, describeType(t, v.Type), v.Addr, v.Flags))
	}
	return out
}
