package dwarf

import (
	"errors"
	"fmt"
)

// PartKind says what an attached part of a Data is.
type PartKind uint8

const (
	// PartSupplement is the supplementary object file of an input dwz -m
	// processed: the target of its DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8,
	// DW_FORM_GNU_strp_alt and DW_FORM_strp_sup attributes.
	PartSupplement PartKind = iota + 1
	// PartSplit is a split DWARF object (a .dwo file, or one unit's
	// contributions to a .dwp) whose split unit a skeleton unit of the
	// input stands for.
	PartSplit
)

// Part is the DWARF of another file read with an input's: its sections
// (the .dwo sections for a PartSplit; Addr is then the input's
// .debug_addr, which the skeleton's DW_AT_addr_base indexes).
type Part struct {
	Kind PartKind
	File string // for error messages

	Info, Abbrev, Str, LineStr, StrOffsets, Addr, RngLists, LocLists, Loc, Ranges []byte
}

// sectionSet is the sections one unit's attributes and lists point into:
// the input's, or an attached part's.
type sectionSet struct {
	str, lineStr, strOffsets, addr, rngLists, locLists, loc, ranges []byte
}

// part is a Data's view of the input (parts[0]) or of an attached Part.
// The .debug_info and .debug_abbrev of attached parts follow the input's in
// Data.info and Data.abbrev, at infoOff and abbrevOff, so that their units
// have offsets of their own in the one .debug_info offset space; the other
// sections stay apart.
type part struct {
	kind               PartKind // 0 for the input
	file               string
	infoOff, abbrevOff uint64
	infoEnd, abbrevEnd uint64
	secs               sectionSet
	strs               strTable // NUL index of secs.str
}

// ErrNoSupplement is wrapped by the DecodeError of an attribute that
// points into a supplementary file when the Data has none attached.
var ErrNoSupplement = errors.New("the attribute points into a supplementary object file (dwz -m), which was not given")

// Attach appends p to d and returns its number (Unit.Part of its units).
// Call Units again afterwards: it lists the part's units after the input's.
// The input's .debug_info and .debug_abbrev are copied on the first
// attach: an input with parts costs the size of both once more. Attach
// must not run concurrently with any other use of d.
func (d *Data) Attach(p Part) (int, error) {
	if p.Kind != PartSupplement && p.Kind != PartSplit {
		return 0, fmt.Errorf("dwarf: %s: attach of unknown part kind %d", p.File, p.Kind)
	}
	if p.Kind == PartSupplement && d.supPart > 0 {
		return 0, fmt.Errorf("dwarf: %s: a second supplementary file (%s)", d.file, p.File)
	}
	if len(p.Info) > 0 && len(p.Abbrev) == 0 {
		return 0, &DecodeError{File: p.File, Section: ".debug_abbrev", Unit: -1, Err: errNoSection}
	}
	if len(d.parts) == 1 {
		d.info = append(make([]byte, 0, len(d.info)+len(p.Info)), d.info...)
		d.abbrev = append(make([]byte, 0, len(d.abbrev)+len(p.Abbrev)), d.abbrev...)
	}
	np := &part{kind: p.Kind, file: p.File, infoOff: uint64(len(d.info)), abbrevOff: uint64(len(d.abbrev)),
		secs: sectionSet{str: p.Str, lineStr: p.LineStr, strOffsets: p.StrOffsets, addr: p.Addr,
			rngLists: p.RngLists, locLists: p.LocLists, loc: p.Loc, ranges: p.Ranges}}
	d.info = append(d.info, p.Info...)
	d.abbrev = append(d.abbrev, p.Abbrev...)
	np.infoEnd, np.abbrevEnd = uint64(len(d.info)), uint64(len(d.abbrev))
	d.parts = append(d.parts, np)
	n := len(d.parts) - 1
	if p.Kind == PartSupplement {
		d.supPart = n
	}
	return n, nil
}

// Parts returns the number of parts of d, the input's included.
func (d *Data) Parts() int { return len(d.parts) }

// PartKindOf returns the kind of part n (0 for the input).
func (d *Data) PartKindOf(n int) PartKind { return d.parts[n].kind }

// PartFile returns the file of part n.
func (d *Data) PartFile(n int) string { return d.parts[n].file }

// PartStrings returns the string sections of part n, which names of its
// units alias.
func (d *Data) PartStrings(n int) (str, lineStr []byte) {
	return d.parts[n].secs.str, d.parts[n].secs.lineStr
}

// InputInfoSize returns the size of the input's own .debug_info: units at
// or past it belong to attached parts.
func (d *Data) InputInfoSize() uint64 { return d.parts[0].infoEnd }

// partAt returns the number of the part whose .debug_info holds off.
func (d *Data) partAt(off uint64) int {
	for i := len(d.parts) - 1; i > 0; i-- {
		if off >= d.parts[i].infoOff {
			return i
		}
	}
	return 0
}

// partAtAbbrev returns the number of the part whose .debug_abbrev holds off.
func (d *Data) partAtAbbrev(off uint64) int {
	for i := len(d.parts) - 1; i > 0; i-- {
		if off >= d.parts[i].abbrevOff {
			return i
		}
	}
	return 0
}

// partNul returns the NUL bitmap of part n's .debug_str.
func (d *Data) partNul(n int) []uint64 {
	p := d.parts[n]
	p.strs.once.Do(func() { p.strs.nul = nulBitmap(p.secs.str) })
	return p.strs.nul
}

// altRef resolves a DW_FORM_GNU_ref_alt or DW_FORM_ref_sup4/8 value v read
// at at: the absolute offset of the supplement's DIE.
func (r *Reader) altRef(f *Field, v uint64, at int) bool {
	d := r.d
	if d.supPart == 0 || r.part == d.supPart {
		r.fail(uint64(at), fmt.Errorf("%s reference 0x%x: %w", f.Form, v, ErrNoSupplement))
		return false
	}
	sup := d.parts[d.supPart]
	if v >= sup.infoEnd-sup.infoOff {
		r.fail(uint64(at), fmt.Errorf("%s reference 0x%x past the end of the supplementary file %s's .debug_info (size 0x%x)",
			f.Form, v, sup.file, sup.infoEnd-sup.infoOff))
		return false
	}
	f.Val, f.Class = v+sup.infoOff, ClassReference
	return true
}

// altStr resolves a DW_FORM_GNU_strp_alt or DW_FORM_strp_sup value v read
// at at: a string of the supplement's .debug_str.
func (r *Reader) altStr(f *Field, v uint64, at int) bool {
	d := r.d
	if d.supPart == 0 || r.part == d.supPart {
		r.fail(uint64(at), fmt.Errorf("%s string 0x%x: %w", f.Form, v, ErrNoSupplement))
		return false
	}
	sup := d.parts[d.supPart]
	f.Val, f.Class = v, ClassString
	f.Bytes = r.cstring(sup.secs.str, ".debug_str of the supplementary file "+sup.file, v, at)
	return f.Bytes != nil
}

func (k PartKind) String() string {
	switch k {
	case PartSupplement:
		return "supplementary file"
	case PartSplit:
		return "split DWARF object"
	}
	return "input"
}

// unitSections returns the sections u's lists and indexes point into.
func (d *Data) unitSections(u *Unit) (*sectionSet, error) {
	if u.Part < 0 || u.Part >= len(d.parts) {
		return nil, d.decodeError(".debug_info", u.Offset, u.Index, fmt.Errorf("unit of part %d, the data has %d", u.Part, len(d.parts)))
	}
	return &d.parts[u.Part].secs, nil
}
