package dwarf

import "unsafe"

// Entry is one debugging information entry (DIE). Reader.Next fills it in
// place, reusing the backing array of Fields.
type Entry struct {
	Offset   uint64 // .debug_info offset of the DIE
	Tag      Tag    // 0 for the null entry that ends a sibling list
	Children bool
	Fields   []Field
}

// Field is one attribute of an Entry.
//
// Val holds: constants (data1/2/4/8, udata unsigned; sdata and
// implicit_const as int64 bits with Signed set), addresses (addr, and addrx
// resolved through .debug_addr), references as absolute .debug_info offsets
// (ref1/2/4/8/udata converted, ref_addr as is), flags as 1 or 0, section
// offsets, loclistx and rnglistx resolved to offsets in .debug_loclists and
// .debug_rnglists, and the raw value of supplementary-file forms
// (strp_sup, ref_sup4/8, GNU_ref_alt, GNU_strp_alt) and ref_sig8.
//
// Bytes holds strings (without the NUL; string, strp, line_strp and strx
// resolved), blocks, exprloc and data16. It is a capacity-limited sub-slice
// of the section data: it must not be modified.
type Field struct {
	Attr   Attr
	Form   Form // the actual form (DW_FORM_indirect is resolved)
	Class  Class
	Signed bool // Val holds an int64
	Val    uint64
	Bytes  []byte
}

// Str returns the field's bytes as a string without copying. The string
// aliases the section data.
func (f *Field) Str() string { return unsafe.String(unsafe.SliceData(f.Bytes), len(f.Bytes)) }

// Int returns Val as a signed value: as is for signed forms, else the
// unsigned value converted.
func (f *Field) Int() int64 { return int64(f.Val) }

// Field returns the field of attribute a, or nil if e has none.
func (e *Entry) Field(a Attr) *Field {
	for i := range e.Fields {
		if e.Fields[i].Attr == a {
			return &e.Fields[i]
		}
	}
	return nil
}

// Val returns the Val of attribute a and whether e has it.
func (e *Entry) Val(a Attr) (uint64, bool) {
	if f := e.Field(a); f != nil {
		return f.Val, true
	}
	return 0, false
}

// Name returns DW_AT_name as a string that aliases the section data, or ""
// if e has no name.
func (e *Entry) Name() string {
	if f := e.Field(AttrName); f != nil && f.Class == ClassString {
		return f.Str()
	}
	return ""
}
