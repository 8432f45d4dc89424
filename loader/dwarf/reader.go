package dwarf

import (
	"errors"
	"fmt"
	"unsafe"
)

// Reader walks the DIEs of one unit at a time. It is not safe for
// concurrent use; use one Reader per goroutine. A Reader can be moved
// between units with Seek.
//
// Errors are sticky: after the first one, Next returns false and Seek
// returns it; Err reports it.
type Reader struct {
	d    *Data
	tab  *abbrevTable
	info []byte // .debug_info cut at the end of the unit
	pos  int    // offset of the next DIE

	unitOff  uint64
	unitIdx  int
	dataOff  uint64
	version  uint16
	addrSize int
	offSize  int
	le       bool
	raw      bool // leave indexed forms unresolved (first pass over the root)

	strOffBase, addrBase, locBase, rngBase uint64

	lastChildren bool   // the last DIE returned has children not yet walked
	lastSibling  uint64 // its DW_AT_sibling, 0 if none

	str     []byte   // .debug_str
	nul     []uint64 // its NUL bitmap (see strTable)
	lineStr []byte   // .debug_line_str

	// part is the number of the unit's part (see Data.Attach), secs its
	// sections; str and lineStr are secs' too. refAddrAdd moves the
	// part's DW_FORM_ref_addr values to where its .debug_info starts in
	// Data.info.
	part       int
	secs       *sectionSet
	refAddrAdd uint64

	err     error
	root    Entry // scratch entry for Seek
	scratch abbrevScratch

	// keep, when set, selects the attributes Next returns (see Keep); the
	// others are skipped without being decoded.
	keep *AttrSet
	// plans[i] is how to decode tab.list[i] under keep (built by Seek).
	plans    []keptPlan
	planSpec []keptSpec   // the plans' kept attributes, back to back
	plansFor *abbrevTable // the table the plans were built for
	// shared holds the plans built for shared tables, which do not
	// change, for a walk that goes back and forth between units of a
	// few tables (dwz's partial units and the units importing them).
	shared map[*abbrevTable]planSet
	// scratchPlans are the plans of the table last parsed into the
	// scratch table, scratchPlansKey, if scratchPlansValid.
	scratchPlans      planSet
	scratchPlansKey   abbrevKey
	scratchPlansValid bool
}

// planSet is the plans of one table.
type planSet struct {
	plans    []keptPlan
	planSpec []keptSpec
}

// usePlans sets the plans for r.tab: built once for a shared table, and
// for the scratch table once per table parsed into it.
func (r *Reader) usePlans() {
	if r.tab == nil || r.keep == nil {
		r.plans, r.planSpec = nil, nil
		r.buildPlans()
		return
	}
	if r.tab == &r.scratch.table {
		if !r.scratchPlansValid || r.scratchPlansKey != r.scratch.key {
			r.plans, r.planSpec = r.scratchPlans.plans[:0], r.scratchPlans.planSpec[:0]
			r.buildPlans()
			r.scratchPlans = planSet{r.plans, r.planSpec}
			r.scratchPlansKey, r.scratchPlansValid = r.scratch.key, true
		}
		r.plans, r.planSpec, r.plansFor = r.scratchPlans.plans, r.scratchPlans.planSpec, r.tab
		return
	}
	if ps, ok := r.shared[r.tab]; ok {
		r.plans, r.planSpec, r.plansFor = ps.plans, ps.planSpec, r.tab
		return
	}
	r.plans, r.planSpec = nil, nil
	r.buildPlans()
	if r.shared == nil {
		r.shared = map[*abbrevTable]planSet{}
	}
	r.shared[r.tab] = planSet{r.plans, r.planSpec}
}

// keptPlan decodes a DIE of one abbreviation under Reader.keep. When every
// attribute has a fixed size (the common case: a member's name, file, line,
// column, type and offset are strp, data1/implicit, data1/2, data1, ref4
// and data1/2), the kept ones are read at their offsets and the rest is
// one addition; otherwise Next walks the attributes.
type keptPlan struct {
	fixed       bool
	size        int32 // encoded size of all attributes, when fixed
	first, n    int32 // the kept attributes: planSpec[first:first+n]
	siblingSlot int32 // index of DW_AT_sibling among the kept fields, -1 if none
}

// keptSpec is one kept attribute of a fixed-size abbreviation.
type keptSpec struct {
	spec *attrSpec
	off  int32 // from the end of the abbreviation code
}

// An AttrSet is a set of attribute codes (DWARF's end at 0x3fff).
type AttrSet [(maxAttr + 1) / 64]uint64

// NewAttrSet returns the set of attrs.
func NewAttrSet(attrs ...Attr) *AttrSet {
	var s AttrSet
	for _, a := range attrs {
		s.Add(a)
	}
	return &s
}

// Add adds a to s; codes past 0x3fff are ignored.
func (s *AttrSet) Add(a Attr) {
	if a <= maxAttr {
		s[a>>6] |= 1 << (a & 63)
	}
}

// Has reports whether a is in s.
func (s *AttrSet) Has(a Attr) bool { return a <= maxAttr && s[a>>6]&(1<<(a&63)) != 0 }

// Keep makes Next return only the attributes in set (nil: all), skipping
// the others undecoded: a walk that needs a few attributes of each DIE
// then pays little for the rest. DW_AT_sibling is always kept (SkipChildren
// uses it), and so are the attributes Seek reads from the unit's root.
// Values of skipped attributes are not checked (a bad string offset in one
// goes unnoticed).
func (r *Reader) Keep(set *AttrSet) {
	if set != nil {
		cp := *set
		for _, a := range []Attr{AttrSibling, AttrStrOffsetsBase, AttrAddrBase, AttrGNUAddrBase,
			AttrLoclistsBase, AttrRnglistsBase, AttrLowPc, AttrProducer, AttrName, AttrLanguage} {
			cp.Add(a)
		}
		set = &cp
	}
	r.keep = set
	r.shared, r.scratchPlansValid = nil, false
	r.plans, r.planSpec = nil, nil
	r.buildPlans()
}

// NewReader returns a Reader for d. Call Seek before Next. Readers are
// cheap but worth reusing: a Reader keeps the abbreviation table of its
// unit, so SeekOffset within the same unit costs nothing, while a fresh
// Reader may parse the table again (see Data.abbrevTable).
func (d *Data) NewReader() *Reader {
	return &Reader{d: d, le: d.le, unitIdx: -1, str: d.str, lineStr: d.lineStr, secs: &d.parts[0].secs}
}

// Err returns the first error the Reader met, or nil.
func (r *Reader) Err() error { return r.err }

// Offset returns the .debug_info offset of the DIE that Next decodes next.
func (r *Reader) Offset() uint64 { return uint64(r.pos) }

func (r *Reader) fail(off uint64, err error) {
	if r.err == nil {
		r.err = r.d.decodeError(".debug_info", off, r.unitIdx, err)
	}
}

func (r *Reader) truncated(off int, what string) {
	r.fail(uint64(off), fmt.Errorf("%w: %s runs past the end of the unit", ErrTruncated, what))
}

var errNoRoot = errors.New("unit has no root DIE")

// Seek positions r at the root DIE of u, so that Next returns the root
// first. It parses (or takes from the cache) the unit's abbreviation table
// and reads the root's attributes into u: the section bases that indexed
// forms need (DW_AT_str_offsets_base, DW_AT_addr_base, DW_AT_loclists_base,
// DW_AT_rnglists_base), LowPC, Producer, Name and Language. A base the
// root does not give keeps the value u already has: for a split unit, set
// u.AddrBase from its skeleton unit before calling Seek.
func (r *Reader) Seek(u *Unit) error {
	if r.err != nil {
		return r.err
	}
	d := r.d
	r.unitIdx = u.Index
	if u.End > uint64(len(d.info)) || u.DataOffset > u.End || u.Offset > u.DataOffset {
		r.fail(u.Offset, fmt.Errorf("unit bounds [0x%x, 0x%x) outside .debug_info (size 0x%x)", u.Offset, u.End, len(d.info)))
		return r.err
	}
	if u.Version < 2 || u.Version > 5 {
		r.fail(u.Offset, fmt.Errorf("unsupported DWARF version %d", u.Version))
		return r.err
	}
	switch u.AddrSize {
	case 1, 2, 4, 8:
	default:
		r.fail(u.Offset, fmt.Errorf("unsupported address size %d", u.AddrSize))
		return r.err
	}
	if u.Part != r.part {
		if u.Part < 0 || u.Part >= len(d.parts) {
			r.fail(u.Offset, fmt.Errorf("unit of part %d, the data has %d", u.Part, len(d.parts)))
			return r.err
		}
		p := d.parts[u.Part]
		r.part, r.secs, r.refAddrAdd = u.Part, &p.secs, p.infoOff
		r.str, r.lineStr, r.nul = p.secs.str, p.secs.lineStr, nil
	}
	if r.nul == nil && len(r.str) > 0 {
		r.nul = d.partNul(r.part)
	}
	tab, err := d.abbrevTable(u, &r.scratch)
	if err != nil {
		r.err = err
		return err
	}
	// The plans follow the table. The scratch table may have been parsed
	// anew for this unit: build them again for it (a few hundred
	// abbreviations, against thousands of DIEs); a shared table does not
	// change, so its plans hold while r walks unit after unit using it
	// (dwz's partial units, read again with each unit that imports them).
	if tab != r.tab || tab == &r.scratch.table || r.plansFor != tab {
		r.tab = tab
		r.usePlans()
	}

	r.info = d.info[:u.End]
	r.unitOff = u.Offset
	r.dataOff = u.DataOffset
	r.version = u.Version
	r.addrSize = int(u.AddrSize)
	r.offSize = u.OffsetSize()
	// Bases the root does not give keep the values already in u (a split
	// unit's DW_AT_addr_base comes from its skeleton, so the caller sets
	// it), defaulting for split units to their own contributions, which
	// start just past the section header.
	r.strOffBase, r.addrBase, r.locBase, r.rngBase = u.StrOffsetsBase, u.AddrBase, u.LocListsBase, u.RngListsBase
	if u.UnitType == UTSplitCompile || u.UnitType == UTSplitType {
		if r.strOffBase == 0 {
			// .debug_str_offsets header: unit length, version, padding.
			r.strOffBase = uint64(2 * r.offSize)
		}
		// .debug_loclists/.debug_rnglists header: unit length, version,
		// address size, segment selector size, offset entry count.
		if r.locBase == 0 {
			r.locBase = uint64(2*r.offSize + 4)
		}
		if r.rngBase == 0 {
			r.rngBase = uint64(2*r.offSize + 4)
		}
	}

	// First pass over the root: find the bases without resolving indexed
	// forms, which may depend on them.
	r.pos = int(u.DataOffset)
	r.raw = true
	ok := r.Next(&r.root)
	r.raw = false
	if !ok {
		if r.err == nil {
			r.fail(u.DataOffset, errNoRoot)
		}
		return r.err
	}
	for i := range r.root.Fields {
		f := &r.root.Fields[i]
		switch f.Attr {
		case AttrStrOffsetsBase:
			r.strOffBase = f.Val
		case AttrAddrBase, AttrGNUAddrBase:
			r.addrBase = f.Val
		case AttrLoclistsBase:
			r.locBase = f.Val
		case AttrRnglistsBase:
			r.rngBase = f.Val
		}
	}
	u.StrOffsetsBase, u.AddrBase, u.LocListsBase, u.RngListsBase = r.strOffBase, r.addrBase, r.locBase, r.rngBase

	// Second pass: decode the root for real.
	r.pos = int(u.DataOffset)
	if !r.Next(&r.root) {
		if r.err == nil {
			r.fail(u.DataOffset, errNoRoot)
		}
		return r.err
	}
	// A split unit's base address is its skeleton's, which the caller set.
	if d.parts[u.Part].kind != PartSplit {
		u.LowPC = 0
	}
	u.Producer, u.Name, u.Language = "", "", 0
	for i := range r.root.Fields {
		f := &r.root.Fields[i]
		switch f.Attr {
		case AttrLowPc:
			if f.Class == ClassAddress {
				u.LowPC = f.Val
			}
		case AttrProducer:
			if f.Class == ClassString {
				u.Producer = f.Str()
			}
		case AttrName:
			if f.Class == ClassString {
				u.Name = f.Str()
			}
		case AttrLanguage:
			u.Language = f.Val
		}
	}
	r.pos = int(u.DataOffset)
	r.lastChildren, r.lastSibling = false, 0
	return nil
}

// SeekOffset positions r at the DIE at .debug_info offset off, which must
// lie in unit u (see FindUnit). It seeks to u first if r is on another unit.
func (r *Reader) SeekOffset(u *Unit, off uint64) error {
	if r.err != nil {
		return r.err
	}
	if r.tab == nil || r.unitOff != u.Offset || r.unitIdx != u.Index {
		if err := r.Seek(u); err != nil {
			return err
		}
	}
	if off < r.dataOff || off >= uint64(len(r.info)) {
		r.fail(off, fmt.Errorf("DIE offset 0x%x outside unit [0x%x, 0x%x)", off, r.dataOff, len(r.info)))
		return r.err
	}
	r.pos = int(off)
	r.lastChildren, r.lastSibling = false, 0
	return nil
}

// Next decodes the next DIE of the unit into e, reusing e.Fields' backing
// array. It returns false at the end of the unit or on error (see Err).
// The null entries that end sibling lists are returned with Tag 0.
func (r *Reader) Next(e *Entry) bool {
	if r.err != nil || r.tab == nil {
		return false
	}
	info := r.info
	pos := r.pos
	if pos >= len(info) {
		r.lastChildren = false
		return false
	}
	e.Offset = uint64(pos)
	var code uint64
	if c := info[pos]; c < 0x80 {
		code = uint64(c)
		pos++
	} else if code, pos = uleb(info, pos); pos < 0 {
		r.fail(e.Offset, errLEB)
		return false
	}
	if code == 0 {
		e.Tag, e.Children, e.Fields = 0, false, e.Fields[:0]
		r.pos = pos
		r.lastChildren = false
		return true
	}
	var ab *abbrev
	idx := -1
	if tab := r.tab; code < uint64(len(tab.dense)) {
		if i := tab.dense[code]; i > 0 {
			ab, idx = &tab.list[i-1], int(i-1)
		}
	} else if ab = tab.lookup(code); ab != nil {
		idx = int((uintptr(unsafe.Pointer(ab)) - uintptr(unsafe.Pointer(&tab.list[0]))) / unsafe.Sizeof(*ab))
	}
	if ab == nil {
		r.fail(e.Offset, fmt.Errorf("abbreviation code %d not defined", code))
		return false
	}
	e.Tag, e.Children = ab.tag, ab.children
	if idx < len(r.plans) && r.plans[idx].fixed {
		if pos = r.nextPlanned(e, ab, &r.plans[idx], pos); pos < 0 {
			return false
		}
		r.pos = pos
		r.lastChildren = ab.children
		return true
	}
	n := len(ab.specs)
	if cap(e.Fields) < n {
		e.Fields = make([]Field, n, max(n, 16))
	}
	fields := e.Fields[:n]
	e.Fields = fields
	specs := ab.specs[:len(fields)]
	le := r.le
	keep := r.keep
	j, sib := 0, -1 // sib: DW_AT_sibling's index among the kept fields
	for i := range specs {
		s := &specs[i]
		if keep != nil && keep[s.attr>>6]&(1<<(s.attr&63)) == 0 {
			if s.size >= 0 {
				pos += int(s.size)
				continue
			}
			if pos = r.skip(s.kind, int(s.size), pos); pos < 0 {
				return false
			}
			continue
		}
		if i == int(ab.sibling) {
			sib = j
		}
		f := &fields[j]
		j++
		f.Attr, f.Form, f.Class, f.Signed = Attr(s.attr), s.form, s.class, false
		switch s.fast {
		case fastU1, fastRef1, fastFlag:
			if pos >= len(info) {
				r.truncated(pos, "attribute value")
				return false
			}
			v := uint64(info[pos])
			switch s.fast {
			case fastRef1:
				v += r.unitOff
			case fastFlag:
				v = min(v, 1)
			}
			f.Val, f.Bytes = v, nil
			pos++
		case fastU2, fastRef2:
			if 2 > len(info)-pos {
				r.truncated(pos, "attribute value")
				return false
			}
			v := uint64(get16(info[pos:], le))
			if s.fast == fastRef2 {
				v += r.unitOff
			}
			f.Val, f.Bytes = v, nil
			pos += 2
		case fastU4:
			if 4 > len(info)-pos {
				r.truncated(pos, "attribute value")
				return false
			}
			f.Val, f.Bytes = uint64(get32(info[pos:], le)), nil
			pos += 4
		case fastRef4:
			if 4 > len(info)-pos {
				r.truncated(pos, "attribute value")
				return false
			}
			f.Val, f.Bytes = uint64(get32(info[pos:], le))+r.unitOff, nil
			pos += 4
		case fastU8, fastRef8:
			if 8 > len(info)-pos {
				r.truncated(pos, "attribute value")
				return false
			}
			v := get64(info[pos:], le)
			if s.fast == fastRef8 {
				v += r.unitOff
			}
			f.Val, f.Bytes = v, nil
			pos += 8
		case fastStrp4, fastStrp8:
			var v uint64
			size := 4
			if s.fast == fastStrp8 {
				size = 8
			}
			if size > len(info)-pos {
				r.truncated(pos, "attribute value")
				return false
			}
			if size == 4 {
				v = uint64(get32(info[pos:], le))
			} else {
				v = get64(info[pos:], le)
			}
			if f.Val, f.Bytes = v, r.strp(v, pos); f.Bytes == nil {
				return false // strp recorded the error
			}
			pos += size
		case fastPresent:
			f.Val, f.Bytes = 1, nil
		case fastImplicit:
			f.Val, f.Signed, f.Bytes = uint64(s.implicit), true, nil
		default:
			if pos = r.value(f, s.kind, int(s.size), s.implicit, pos); pos < 0 {
				return false
			}
		}
	}
	if pos > len(info) { // skipped fixed-size attributes ran past the end
		r.truncated(len(info), "attribute value")
		return false
	}
	e.Fields = fields[:j]
	r.pos = pos
	r.lastChildren = ab.children
	r.lastSibling = 0
	if sib >= 0 {
		r.lastSibling = e.Fields[sib].Val
	}
	return true
}

// buildPlans makes the decoding plans of r.tab's abbreviations under
// r.keep (none without keep).
func (r *Reader) buildPlans() {
	r.plans, r.planSpec = r.plans[:0], r.planSpec[:0]
	r.plansFor = r.tab
	if r.keep == nil || r.tab == nil {
		return
	}
	for i := range r.tab.list {
		ab := &r.tab.list[i]
		p := keptPlan{fixed: true, first: int32(len(r.planSpec)), siblingSlot: -1}
		off := int32(0)
		for j := range ab.specs {
			sp := &ab.specs[j]
			if sp.size < 0 {
				p.fixed = false
				break
			}
			if r.keep.Has(Attr(sp.attr)) {
				if j == int(ab.sibling) {
					p.siblingSlot = p.n
				}
				r.planSpec = append(r.planSpec, keptSpec{spec: sp, off: off})
				p.n++
			}
			off += int32(sp.size)
		}
		if !p.fixed {
			r.planSpec = r.planSpec[:p.first]
			p.n, p.siblingSlot = 0, -1
		}
		p.size = off
		r.plans = append(r.plans, p)
	}
}

// nextPlanned decodes the attributes of a DIE of abbreviation ab (whose
// plan p is fixed) starting at pos into e. It returns the position after
// the DIE, or -1 on error.
func (r *Reader) nextPlanned(e *Entry, ab *abbrev, p *keptPlan, pos int) int {
	info := r.info
	if int(p.size) > len(info)-pos {
		r.truncated(pos, "attribute value")
		return -1
	}
	n := int(p.n)
	if cap(e.Fields) < n {
		e.Fields = make([]Field, n, max(n, 16))
	}
	fields := e.Fields[:n]
	e.Fields = fields
	le := r.le
	for i, ks := range r.planSpec[p.first : p.first+p.n] {
		s := ks.spec
		f := &fields[i]
		at := pos + int(ks.off)
		f.Attr, f.Form, f.Class, f.Signed = Attr(s.attr), s.form, s.class, false
		switch s.fast {
		case fastU1:
			f.Val, f.Bytes = uint64(info[at]), nil
		case fastRef1:
			f.Val, f.Bytes = uint64(info[at])+r.unitOff, nil
		case fastFlag:
			f.Val, f.Bytes = min(uint64(info[at]), 1), nil
		case fastU2:
			f.Val, f.Bytes = uint64(get16(info[at:], le)), nil
		case fastRef2:
			f.Val, f.Bytes = uint64(get16(info[at:], le))+r.unitOff, nil
		case fastU4:
			f.Val, f.Bytes = uint64(get32(info[at:], le)), nil
		case fastRef4:
			f.Val, f.Bytes = uint64(get32(info[at:], le))+r.unitOff, nil
		case fastU8:
			f.Val, f.Bytes = get64(info[at:], le), nil
		case fastRef8:
			f.Val, f.Bytes = get64(info[at:], le)+r.unitOff, nil
		case fastStrp4, fastStrp8:
			var v uint64
			if s.fast == fastStrp4 {
				v = uint64(get32(info[at:], le))
			} else {
				v = get64(info[at:], le)
			}
			if f.Val, f.Bytes = v, r.strp(v, at); f.Bytes == nil {
				return -1 // strp recorded the error
			}
		case fastPresent:
			f.Val, f.Bytes = 1, nil
		case fastImplicit:
			f.Val, f.Signed, f.Bytes = uint64(s.implicit), true, nil
		default: // other fixed-size forms (data16, addrx1..4, strx1..4, ...)
			if r.value(f, s.kind, int(s.size), s.implicit, at) < 0 {
				return -1
			}
		}
	}
	r.lastSibling = 0
	if p.siblingSlot >= 0 {
		r.lastSibling = fields[p.siblingSlot].Val
	}
	return pos + int(p.size)
}
