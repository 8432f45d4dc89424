package loader

import (
	"fmt"
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
		}); err != nil {
			return err
		}
	}
	err := w.finish(t)
	w.release()
	return err
}

// release lets the garbage collector have the walk's buffers: after a
// merged walk they hold all of an input's DIEs, and the next walk, if any,
// is of another input.
func (w *Walker) release() {
	w.raw, w.tableOf, w.tabOrd, w.members, w.stack, w.ptrTags, w.params, w.start = nil, nil, nil, nil, nil, nil, nil, nil
	w.funcs, w.funcOrder, w.fparams, w.fannots, w.funcFirst = nil, nil, nil, nil, nil
	w.paramRaw, w.paramSlot, w.funcIndex, w.recoded = nil, nil, nil, nil
	w.vars, w.vannots = nil, nil
	w.byOff = offsetIndex{}
}

// SkippedRefs is the number of references the last walk read as void
// because they point into a unit WalkMerged's skip left out.
func (w *Walker) SkippedRefs() int { return w.skippedRefs }

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
				if w.members[k].ref == off {
					return rt.off
				}
				k = w.members[k].next
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
