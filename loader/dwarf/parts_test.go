package dwarf

import (
	"debug/elf"
	"errors"
	"strings"
	"testing"
)

const dwzFixtures = "../../testdata/fixtures/dwz"

// TestAttachSupplement: a dwz -m program's alternate forms fail without
// its supplement (ErrNoSupplement, at the attribute); with the supplement
// attached they resolve to the supplement's DIEs and strings, whose units
// follow the program's with their own offsets, and the supplement's own
// DW_FORM_ref_addr and strp values point into its sections.
func TestAttachSupplement(t *testing.T) {
	for _, c := range []struct{ prog, sup string }{{"one-dwz.exe", "common.dwz"}, {"one-dwz5.exe", "common5.dwz"}} {
		secs := sectionsOf(t, dwzFixtures+"/"+c.prog)
		d, err := New(secs)
		if err != nil {
			t.Fatal(err)
		}
		units, err := d.Units()
		if err != nil {
			t.Fatal(err)
		}
		own := len(units)
		r := d.NewReader()
		var e Entry
		if err := r.Seek(&units[0]); err != nil {
			t.Fatal(err)
		}
		for r.Next(&e) {
		}
		if !errors.Is(r.Err(), ErrNoSupplement) || !strings.Contains(r.Err().Error(), ".debug_info+0x") {
			t.Errorf("%s without a supplement: error %v, want ErrNoSupplement at an offset", c.prog, r.Err())
		}

		sup := supSections(t, dwzFixtures+"/"+c.sup)
		d, err = New(secs)
		if err != nil {
			t.Fatal(err)
		}
		n, err := d.Attach(Part{Kind: PartSupplement, File: c.sup, Info: sup.Info, Abbrev: sup.Abbrev, Str: sup.Str, LineStr: sup.LineStr})
		if err != nil || n != 1 {
			t.Fatalf("attach: %d, %v", n, err)
		}
		if _, err := d.Attach(Part{Kind: PartSupplement, File: c.sup, Info: sup.Info, Abbrev: sup.Abbrev}); err == nil {
			t.Error("a second supplement attached")
		}
		if units, err = d.Units(); err != nil {
			t.Fatal(err)
		}
		if len(units) <= own || units[own].Part != 1 || units[own].Offset != d.InputInfoSize() || units[own-1].Part != 0 {
			t.Fatalf("%s: %d units, %d own; unit %d part %d at 0x%x", c.prog, len(units), own, own, units[own].Part, units[own].Offset)
		}
		names, refs := 0, 0
		r = d.NewReader()
		for i := range units {
			u := &units[i]
			if err := r.Seek(u); err != nil {
				t.Fatal(err)
			}
			for r.Next(&e) {
				for _, f := range e.Fields {
					switch {
					case f.Class == ClassString && f.Attr == AttrName && len(f.Bytes) == 0:
						t.Errorf("%s: DIE 0x%x: empty name", c.prog, e.Offset)
					case f.Class == ClassString && f.Attr == AttrName:
						names++
					case f.Class == ClassReference && u.Part == 0 && f.Val >= d.InputInfoSize():
						refs++ // into the supplement
						if j := FindUnit(units, f.Val); j < own {
							t.Errorf("%s: DIE 0x%x refers to 0x%x, not in a supplement unit", c.prog, e.Offset, f.Val)
						}
					}
				}
			}
			if r.Err() != nil {
				t.Fatalf("%s: unit %d: %v", c.prog, i, r.Err())
			}
		}
		if names == 0 || refs == 0 {
			t.Errorf("%s: %d names, %d references into the supplement", c.prog, names, refs)
		}
	}
}

// supSections reads the DWARF sections of a dwz supplementary file, an
// ET_REL file without relocations.
func supSections(t *testing.T, path string) Sections {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL {
			t.Fatalf("%s: relocations in %s", path, s.Name)
		}
	}
	get := func(name string) []byte {
		s := f.Section(name)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return Sections{Info: get(".debug_info"), Abbrev: get(".debug_abbrev"), Str: get(".debug_str"), LineStr: get(".debug_line_str")}
}
