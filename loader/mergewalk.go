package loader

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// unitSpan is a unit whose range of .debug_info a table covers; walked
// is false for a unit the merged walk left out (an excluded language).
type unitSpan struct {
	u      *dwarf.Unit
	walked bool
}

// WalkMerged decodes units into t as one unit, as pahole's
// cus__merge_and_process_cu does for LTO inputs (Input.Merge): the DIEs of
// every unit in order, one type table, one functions table and one table
// of variables, and references resolved across units (DW_FORM_ref_addr).
// The table takes the first unit's attributes (address size, producer,
// language), as pahole's merged CU does. skip, if not nil, is asked about
// each unit once its root DIE is read (pahole's early CU filter, e.g.
// --lang_exclude); a skipped unit adds nothing, and references into it read
// as void, as in pahole (Walker.SkippedRefs counts them). units must be in
// .debug_info order and not empty.
func (w *Walker) WalkMerged(units []dwarf.Unit, t *TypeTable, skip func(*dwarf.Unit) bool) error {
	if len(units) == 0 {
		return fmt.Errorf("merged walk of no units")
	}
	w.begin(t, &units[0], units[0].Offset, units[len(units)-1].End)
	w.spans = w.spans[:0]
	for i := range units {
		u := &units[i]
		span := len(w.spans)
		w.spans = append(w.spans, unitSpan{u: u, walked: true})
		if err := w.walkUnit(u, t, func(u *dwarf.Unit) bool {
			left := skip != nil && skip(u)
			w.spans[span].walked = !left
			return left
		}, nil); err != nil {
			return err
		}
	}
	err := w.finish(t)
	w.release()
	return err
}

// WalkImporting decodes compile unit units[group[len(group)-1]] into t
// together with the partial units it needs, units[group[:len(group)-1]]
// (a group of Input.Groups), as one unit: the table of the unit as it was
// before dwz moved DIEs into the partial units. The walk takes in each
// partial unit right after the top-level DIE that first refers into it
// (refs: Input.PartRefs), where the moved DIEs were, as far as the
// references tell: a partial unit only imported is walked after the
// compile unit. The table takes the compile unit's attributes; each DIE
// is read as the DIE of the unit it is in. The walk reads copies of the
// partial units (reading fills a unit's bases and attributes), so walks
// on other goroutines may read them too.
func (w *Walker) WalkImporting(units []dwarf.Unit, group []int, refs [][]PartRef, t *TypeTable) error {
	last := len(group) - 1
	u := &units[group[last]]
	w.partBuf = w.partBuf[:0]
	for _, k := range group[:last] {
		w.partBuf = append(w.partBuf, units[k])
	}
	w.walkOrder = w.walkOrder[:0]
	for i := range w.partBuf {
		w.walkOrder = append(w.walkOrder, &w.partBuf[i])
	}
	w.walkOrder = append(w.walkOrder, u)
	w.begin(t, u, u.Offset, u.End)
	w.byOff.beginUnits(w.walkOrder)
	w.spans = w.spans[:0]
	for _, p := range w.walkOrder {
		w.spans = append(w.spans, unitSpan{u: p, walked: true})
	}
	slices.SortFunc(w.spans, func(a, b unitSpan) int { return cmp.Compare(a.u.Offset, b.u.Offset) })
	if len(w.groupPos) < len(units) {
		w.groupPos = make([]int32, len(units))
	}
	for i, k := range group {
		w.groupPos[k] = int32(i) + 1
	}
	w.placed = append(w.placed[:0], make([]bool, len(group))...)
	err := w.walkPlaced(last, refs, t)
	for i := 0; i < last && err == nil; i++ {
		if !w.placed[i] {
			err = w.walkPlaced(i, refs, t)
		}
	}
	for _, k := range group {
		w.groupPos[k] = 0
	}
	if err != nil {
		return err
	}
	return w.finish(t)
}

// walkPlaced walks the unit at position i of WalkImporting's group,
// taking in the units it first refers into.
func (w *Walker) walkPlaced(i int, refs [][]PartRef, t *TypeTable) error {
	w.placed[i] = true
	u := w.walkOrder[i]
	pl := &placing{refs: refs[u.Index]}
	pl.walk = func(k int) error {
		if j := int(w.groupPos[k]) - 1; j >= 0 && !w.placed[j] {
			return w.walkPlaced(j, refs, t)
		}
		return nil
	}
	return w.walkUnit(u, t, nil, pl)
}

// placing is the units a unit's walk takes in: refs, in the order of the
// DIEs that first refer into them, from next on.
type placing struct {
	refs []PartRef
	next int
	walk func(unit int) error
}

// due reports whether a top-level DIE before off first refers into a unit
// not yet taken in.
func (p *placing) due(off uint64) bool { return p.next < len(p.refs) && p.refs[p.next].At < off }

// walkDue takes in the units that top-level DIEs before off first refer
// into.
func (p *placing) walkDue(off uint64) error {
	for p.due(off) {
		k := p.refs[p.next].Unit
		p.next++
		if err := p.walk(k); err != nil {
			return err
		}
	}
	return nil
}

// release lets the garbage collector have the walk's buffers: after a
// merged walk they hold all of an input's DIEs, and the next walk, if any,
// is of another input.
func (w *Walker) release() {
	w.raw, w.tableOf, w.tabOrd, w.stack, w.ptrTags, w.params, w.start = nil, nil, nil, nil, nil, nil, nil
	w.memRef, w.memAt, w.memNext, w.memFix, w.memStatic, w.regroup, w.dropMember = nil, nil, nil, nil, nil, nil, nil
	w.funcs, w.funcOrder, w.fparams, w.fannots, w.funcFirst = nil, nil, nil, nil, nil
	w.paramRaw, w.paramSlot, w.funcIndex, w.recoded = nil, nil, nil, nil
	w.vars, w.vannots = nil, nil
	w.byOff = offsetIndex{}
}

// SkippedRefs is the number of references the last walk read as void
// because they point into a unit WalkMerged's skip left out.
func (w *Walker) SkippedRefs() int { return w.skippedRefs }

// LocationsRead is one past the furthest start of a location list the
// last walk read in the input's own .debug_loclists or .debug_loc (not a
// supplement's or split part's), 0 if it read none: what
// Input.ReleaseLocationsBefore may let go once the walk's unit is done.
func (w *Walker) LocationsRead() uint64 { return w.locEnd }

// noteLocList records that the walk reads the location list at off of
// unit u's location section.
func (w *Walker) noteLocList(u *dwarf.Unit, off uint64) {
	if u.Part == 0 && off >= w.locEnd {
		w.locEnd = off + 1
	}
}

// unitAt returns the unit of the table whose range holds off, or nil.
func (w *Walker) unitAt(off uint64) *unitSpan {
	i := sort.Search(len(w.spans), func(i int) bool { return w.spans[i].u.End > off })
	if i < len(w.spans) && w.spans[i].u.Offset <= off {
		return &w.spans[i]
	}
	return nil
}

// unitOf returns the unit the DIE at off belongs to: def for a table of
// one unit.
func (w *Walker) unitOf(off uint64, def *dwarf.Unit) *dwarf.Unit {
	if len(w.spans) <= 1 {
		return def
	}
	if s := w.unitAt(off); s != nil {
		return s.u
	}
	return def
}

// missed notes a reference to off that found no type DIE. Inside a
// walked unit it reads as void, as in pahole, if a DIE starts there (a DIE
// that is not a type; midDIERef checks);
// into a skipped unit it is counted; anywhere else it is an error
// (refError): the input refers into a unit the table does not hold.
func (w *Walker) missed(off uint64) {
	switch s := w.unitAt(off); {
	case s != nil && s.walked:
		w.voidRefs = append(w.voidRefs, off)
	case s != nil:
		w.skippedRefs++
	case w.badRef == 0:
		w.badRef = off
	}
}

// refError reports the first reference outside the table's units as a
// *dwarf.DecodeError at the DIE it was read from.
func (w *Walker) refError() error {
	if w.badRef == 0 {
		return w.midDIERef()
	}
	where := "outside every unit of .debug_info"
	if len(w.spans) == 1 {
		u := w.spans[0].u
		where = fmt.Sprintf("outside its unit (0x%x-0x%x): a reference into another unit "+
			"(DW_FORM_ref_addr) resolves only when all units are merged, and this input's are not", u.Offset, u.End)
	}
	from := w.referrer(w.badRef)
	unit := -1
	if s := w.unitAt(from); s != nil {
		unit = s.u.Index
	}
	return &dwarf.DecodeError{File: w.data.File(), Section: ".debug_info", Offset: from, Unit: unit,
		Err: fmt.Errorf("DIE 0x%x refers to 0x%x, %s", from, w.badRef, where)}
}

// referrer returns the offset of a DIE whose type reference is off (for
// a member or a subroutine type's parameter: its owner's), 0 if none.
func (w *Walker) referrer(off uint64) uint64 {
	for i := range w.raw {
		if w.raw[i].ref == off {
			return w.raw[i].off
		}
	}
	for i := range w.raw {
		rt := &w.raw[i]
		switch rt.tag {
		case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
			for k, n := int32(rt.first), rt.count; n > 0 && k >= 0; n-- {
				if w.memRef[k] == off {
					return rt.off
				}
				k = w.memNext[k]
			}
		}
	}
	for _, p := range w.params {
		if p.ref == off {
			return w.raw[p.owner].off
		}
	}
	for _, p := range w.fparams {
		if p.typeRef == off {
			return p.off
		}
	}
	for _, f := range w.funcs {
		if f.retRef == off {
			return f.off
		}
	}
	for _, v := range w.vars {
		if v.typeRef == off {
			return v.off
		}
	}
	return 0
}
