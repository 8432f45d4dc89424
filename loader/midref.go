package loader

import (
	"fmt"
	"slices"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// midDIERef checks the type references that found no type DIE in a walked
// unit (Walker.voidRefs). One that lands on a DIE that is not a type reads
// as void, as in pahole; one that lands on no DIE at all (inside another
// DIE, on the unit header or a null entry) is an error naming the
// referring DIE, the target and the last DIE before it, found by reading the units those
// references point into once more, DIE by DIE. No compiler writes such a
// reference; pahole reads it as void.
func (w *Walker) midDIERef() error {
	if len(w.voidRefs) == 0 {
		return nil
	}
	refs := slices.Clone(w.voidRefs)
	slices.Sort(refs)
	refs = slices.Compact(refs)
	r := w.data.NewReader()
	var e dwarf.Entry
	for len(refs) > 0 {
		s := w.unitAt(refs[0])
		if s == nil { // missed records only offsets inside a walked unit
			return fmt.Errorf("type reference 0x%x outside the table's units", refs[0])
		}
		if err := r.Seek(s.u); err != nil {
			return err
		}
		prev := s.u.Offset // the DIE (or header) before the next reference
		for len(refs) > 0 && refs[0] < s.u.End {
			ok := r.Next(&e)
			if ok && e.Offset < refs[0] {
				if e.Tag != 0 {
					prev = e.Offset
				}
				continue
			}
			if !ok || e.Offset > refs[0] || e.Tag == 0 {
				if err := r.Err(); err != nil {
					return err
				}
				from := w.referrer(refs[0])
				return &dwarf.DecodeError{File: w.data.File(), Section: ".debug_info", Offset: from, Unit: s.u.Index,
					Err: fmt.Errorf("DIE 0x%x refers to 0x%x, which is not the start of a DIE (the last DIE or unit header before it starts at 0x%x)",
						from, refs[0], prev)}
			}
			refs = refs[1:] // a DIE starts there
			if ok && e.Tag != 0 {
				prev = e.Offset
			}
		}
	}
	return nil
}
