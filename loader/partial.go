package loader

import (
	"fmt"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// Partial units (DW_TAG_partial_unit) are what dwz makes of the DIEs
// several compile units had in common: each unit that had them imports
// the partial unit (DW_TAG_imported_unit) or refers into it, and a
// partial unit refers into others (those of a dwz -m supplementary file).
// DWARF reads an imported unit's DIEs as the importer's own, so the
// table of a compile unit is the table of the unit before dwz when it
// holds the partial units the unit needs as well as its own DIEs: pahole
// numbers that unit's types in DIE order, and dwz keeps the order of the
// DIEs it moves, and puts the imports first.

// unitGroups returns, for an input with partial units, the units each
// compile unit is walked with (Input.Groups), and false for an input
// without partial units or whose compile units refer into each other (an
// LTO link after dwz, walked merged). units are in .debug_info order.
func unitGroups(d *dwarf.Data, units []dwarf.Unit) ([][]int, [][]PartRef, bool, error) {
	partial, any, err := partialUnits(d, units)
	if err != nil || !any {
		return nil, nil, false, err
	}
	needs, refs, err := unitNeeds(d, units)
	if err != nil {
		return nil, nil, false, err
	}
	for i, ns := range needs {
		for _, j := range ns {
			if !partial[i] && !partial[j] {
				return nil, nil, false, nil // a compile unit refers into another
			}
		}
	}
	var groups [][]int
	seen := make([]int, len(units)) // group number + 1 of the last group that took the unit
	for i := range units {
		if partial[i] {
			continue
		}
		g := len(groups) + 1
		var order []int
		var visit func(k int)
		visit = func(k int) {
			for _, j := range needs[k] {
				if partial[j] && seen[j] != g {
					seen[j] = g
					visit(j)
					order = append(order, j)
				}
			}
		}
		seen[i] = g
		visit(i)
		groups = append(groups, append(order, i))
	}
	return groups, refs, true, nil
}

// partialUnits reports which units are partial units: DW_UT_partial, or
// (before DWARF 5) a root DIE DW_TAG_partial_unit.
func partialUnits(d *dwarf.Data, units []dwarf.Unit) ([]bool, bool, error) {
	partial := make([]bool, len(units))
	any := false
	r := d.NewReader()
	var e dwarf.Entry
	for i := range units {
		u := &units[i]
		switch {
		case u.UnitType == dwarf.UTPartial:
		case u.Version < 5:
			if err := r.Seek(u); err != nil {
				return nil, false, err
			}
			if !r.Next(&e) {
				if err := r.Err(); err != nil {
					return nil, false, err
				}
				continue
			}
			if e.Tag != dwarf.TagPartialUnit {
				continue
			}
		default:
			continue
		}
		partial[i], any = true, true
	}
	return partial, any, nil
}

// PartRef says that the top-level DIE of a unit at offset At (with its
// children) is the first to refer into unit Unit (an index in
// Input.Units): the walk of a group takes in a partial unit right after
// the DIE that first refers into it (Walker.WalkImporting).
type PartRef struct {
	At   uint64
	Unit int
}

// unitNeeds returns, for each unit, the other units its DIEs import or
// refer into, in the order of their first mention, and the first
// reference (not the import) into each.
func unitNeeds(d *dwarf.Data, units []dwarf.Unit) ([][]int, [][]PartRef, error) {
	needs := make([][]int, len(units))
	refs := make([][]PartRef, len(units))
	mark := make([]int, len(units))    // i+1 once unit i needs the unit
	refMark := make([]int, len(units)) // i+1 once unit i refers into the unit
	r := d.NewReader()
	var e dwarf.Entry
	for i := range units {
		u := &units[i]
		if err := r.Seek(u); err != nil {
			return nil, nil, err
		}
		depth := 0
		var top uint64
		for r.Next(&e) {
			if e.Tag == 0 {
				depth--
				continue
			}
			inRoot := depth == 0
			if depth == 1 {
				top = e.Offset
			}
			if e.Children {
				depth++
			}
			for _, f := range e.Fields {
				if f.Class != dwarf.ClassReference || (f.Val >= u.Offset && f.Val < u.End) {
					continue
				}
				j := dwarf.FindUnit(units, f.Val)
				if j < 0 {
					return nil, nil, &dwarf.DecodeError{File: d.File(), Section: ".debug_info", Offset: e.Offset, Unit: u.Index,
						Err: fmt.Errorf("%s %s refers to 0x%x, outside every unit", f.Attr, f.Form, f.Val)}
				}
				if mark[j] != i+1 {
					mark[j] = i + 1
					needs[i] = append(needs[i], j)
				}
				if f.Attr != dwarf.AttrImport && refMark[j] != i+1 && !inRoot {
					refMark[j] = i + 1
					refs[i] = append(refs[i], PartRef{At: top, Unit: j})
				}
			}
		}
		if err := r.Err(); err != nil {
			return nil, nil, err
		}
	}
	return needs, refs, nil
}
