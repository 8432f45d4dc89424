package loader

import (
	"fmt"
	"path/filepath"
	"testing"
)

// groupOffsets renders in's groups as the .debug_info offsets of their
// units, the compile unit last.
func groupOffsets(in *Input) string {
	s := ""
	for _, g := range in.Groups {
		var offs []uint64
		for _, k := range g {
			offs = append(offs, in.Units[k].Offset)
		}
		s += fmt.Sprintf("%#x", offs)
	}
	return s
}

// TestUnitGroups: each compile unit of a dwz'd program is walked with the
// partial units it imports or refers into, directly or through them, and
// the first reference into each is known by its top-level DIE: in
// one-dwz.exe, the program's partial unit at 0 (imported by both units)
// and the supplement's first (common.dwz, placed after the program's
// .debug_info, 0x357 bytes), which the program's refers into from its
// first DIE (0x15); in gcc-dwz.exe (dwz alone), the partial units each
// unit imports. Inputs without partial units have no groups; an LTO link
// is merged.
func TestUnitGroups(t *testing.T) {
	for _, c := range []struct {
		file, groups string
		merge        bool
		refs         map[int][]PartRef // by unit index
	}{
		{"dwz/one-dwz.exe", "[0x357 0x0 0x133][0x357 0x0 0x20a]", false,
			map[int][]PartRef{0: {{At: 0x15, Unit: 3}}, 1: {{At: 0x15f, Unit: 0}, {At: 0x171, Unit: 3}}}},
		{"dwz/one-note0-dwz.exe", "[0x0 0x13f][0x0 0x216]", false, map[int][]PartRef{1: {{At: 0x16b, Unit: 0}}}},
		{"lto/gcc-dwz.exe", "[0xf8 0x117][0xf8 0x0 0x33e][0xf8 0x0 0x51c]", false, nil},
		{"dwz/one.exe", "", false, nil},
		{"lto/thin.exe", "", true, nil},
	} {
		in, err := Open(filepath.Join("../testdata/fixtures", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := groupOffsets(in); got != c.groups || in.Merge != c.merge {
			t.Errorf("%s: groups %s merge %v, want %s merge %v", c.file, got, in.Merge, c.groups, c.merge)
		}
		for u, want := range c.refs {
			if got := fmt.Sprint(in.PartRefs[u]); got != fmt.Sprint(want) {
				t.Errorf("%s: unit %d first refers into other units at %s, want %s", c.file, u, got, fmt.Sprint(want))
			}
		}
		in.Close()
	}
}
