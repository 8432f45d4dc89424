package dwarf

import (
	"errors"
	"fmt"
)

// Supplement is the supplementary object file of an input whose DWARF was
// shared out by dwz -m: partial units the input's units import, and the
// strings and DIEs its DW_FORM_GNU_strp_alt, DW_FORM_strp_sup,
// DW_FORM_GNU_ref_alt and DW_FORM_ref_sup4/8 attributes point at.
type Supplement struct {
	Info, Abbrev, Str, LineStr []byte
	File                       string // for error messages
}

// ErrNoSupplement is wrapped by the DecodeError of an attribute that
// points into a supplementary file when the Data was made without one.
var ErrNoSupplement = errors.New("the attribute points into a supplementary object file (dwz -m), which was not given")

// supplement is a Data's view of its Supplement. The supplement's
// .debug_info and .debug_abbrev follow the input's in Data.info and
// Data.abbrev, at infoOff and abbrevOff, so that its units have offsets of
// their own in the one .debug_info offset space; its string sections stay
// apart.
type supplement struct {
	file               string
	infoOff, abbrevOff uint64
	str, lineStr       []byte
	strs               strTable
}

// attach appends s's sections to d's and records where they start. The
// input's sections are copied: a supplemented input costs the size of its
// .debug_info and .debug_abbrev once more.
func (d *Data) attach(s *Supplement) {
	sup := &supplement{file: s.File, infoOff: uint64(len(d.info)), abbrevOff: uint64(len(d.abbrev)),
		str: s.Str, lineStr: s.LineStr}
	info := make([]byte, 0, len(d.info)+len(s.Info))
	d.info = append(append(info, d.info...), s.Info...)
	abbrev := make([]byte, 0, len(d.abbrev)+len(s.Abbrev))
	d.abbrev = append(append(abbrev, d.abbrev...), s.Abbrev...)
	d.sup = sup
}

// HasSupplement reports whether d was made with a Supplement.
func (d *Data) HasSupplement() bool { return d.sup != nil }

// SupplementStart returns the .debug_info offset where the supplement's
// units start (the size of the input's own .debug_info): units at or past
// it are the supplement's. Without a supplement it is the section's size.
func (d *Data) SupplementStart() uint64 {
	if d.sup == nil {
		return uint64(len(d.info))
	}
	return d.sup.infoOff
}

// supNul returns the NUL bitmap of the supplement's .debug_str.
func (d *Data) supNul() []uint64 {
	d.sup.strs.once.Do(func() { d.sup.strs.nul = nulBitmap(d.sup.str) })
	return d.sup.strs.nul
}

// inSupplementAbbrev reports whether the abbreviation table at off is the
// supplement's.
func (d *Data) inSupplementAbbrev(off uint64) bool { return d.sup != nil && off >= d.sup.abbrevOff }

// altRef resolves a DW_FORM_GNU_ref_alt or DW_FORM_ref_sup4/8 value v read
// at at: the absolute offset of the supplement's DIE.
func (r *Reader) altRef(f *Field, v uint64, at int) bool {
	sup := r.d.sup
	switch {
	case sup == nil:
		r.fail(uint64(at), fmt.Errorf("%s reference 0x%x: %w", f.Form, v, ErrNoSupplement))
		return false
	case r.inSup:
		r.fail(uint64(at), fmt.Errorf("%s reference 0x%x in the supplementary file itself", f.Form, v))
		return false
	case v >= uint64(len(r.d.info))-sup.infoOff:
		r.fail(uint64(at), fmt.Errorf("%s reference 0x%x past the end of the supplementary file %s's .debug_info (size 0x%x)",
			f.Form, v, sup.file, uint64(len(r.d.info))-sup.infoOff))
		return false
	}
	f.Val, f.Class = v+sup.infoOff, ClassReference
	return true
}

// altStr resolves a DW_FORM_GNU_strp_alt or DW_FORM_strp_sup value v read
// at at: a string of the supplement's .debug_str.
func (r *Reader) altStr(f *Field, v uint64, at int) bool {
	sup := r.d.sup
	if sup == nil {
		r.fail(uint64(at), fmt.Errorf("%s string 0x%x: %w", f.Form, v, ErrNoSupplement))
		return false
	}
	f.Val, f.Class = v, ClassString
	f.Bytes = r.cstring(sup.str, ".debug_str of the supplementary file "+sup.file, v, at)
	return f.Bytes != nil
}

// SupplementStrings returns the supplement's .debug_str and
// .debug_line_str, nil without a supplement.
func (d *Data) SupplementStrings() (str, lineStr []byte) {
	if d.sup == nil {
		return nil, nil
	}
	return d.sup.str, d.sup.lineStr
}
