package dwarf

import (
	"bytes"
	"errors"
	"fmt"
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

	str []byte   // .debug_str
	nul []uint64 // its NUL bitmap (see strTable)

	err     error
	root    Entry // scratch entry for Seek
	scratch abbrevScratch
}

// NewReader returns a Reader for d. Call Seek before Next.
func (d *Data) NewReader() *Reader {
	return &Reader{d: d, le: d.le, unitIdx: -1, str: d.str}
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
	if r.nul == nil && len(d.str) > 0 {
		r.nul = d.strNul()
	}
	tab, err := d.abbrevTable(u, &r.scratch)
	if err != nil {
		r.err = err
		return err
	}
	r.tab = tab
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
	u.LowPC, u.Producer, u.Name, u.Language = 0, "", "", 0
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
	if tab := r.tab; code < uint64(len(tab.dense)) {
		if i := tab.dense[code]; i > 0 {
			ab = &tab.list[i-1]
		}
	} else {
		ab = tab.lookup(code)
	}
	if ab == nil {
		r.fail(e.Offset, fmt.Errorf("abbreviation code %d not defined", code))
		return false
	}
	e.Tag, e.Children = ab.tag, ab.children
	n := len(ab.specs)
	if cap(e.Fields) < n {
		e.Fields = make([]Field, n, max(n, 16))
	}
	fields := e.Fields[:n]
	e.Fields = fields
	specs := ab.specs[:len(fields)]
	le := r.le
	for i := range fields {
		s := &specs[i]
		f := &fields[i]
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
			n, ok := strLen(r.nul, v)
			if !ok || v >= uint64(len(r.str)) {
				r.cstring(r.str, ".debug_str", v, pos) // records the error
				return false
			}
			f.Val, f.Bytes = v, r.str[v:v+uint64(n):v+uint64(n)]
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
	r.pos = pos
	r.lastChildren = ab.children
	r.lastSibling = 0
	if ab.sibling >= 0 {
		r.lastSibling = fields[ab.sibling].Val
	}
	return true
}

// value decodes one attribute value of the given kind at pos into f and
// returns the position after it, or -1 on error.
func (r *Reader) value(f *Field, kind uint8, size int, implicit int64, pos int) int {
	info := r.info
	f.Signed = false
	f.Bytes = nil
	if size > 0 && kind != kData16 {
		// Fixed-size integer.
		if size > len(info)-pos {
			r.truncated(pos, "attribute value")
			return -1
		}
		var v uint64
		switch size {
		case 1:
			v = uint64(info[pos])
		case 2:
			v = uint64(get16(info[pos:], r.le))
		case 4:
			v = uint64(get32(info[pos:], r.le))
		case 8:
			v = get64(info[pos:], r.le)
		default:
			v = uint64(get24(info[pos:], r.le))
		}
		at := pos
		pos += size
		switch kind {
		case kRef1, kRef2, kRef4, kRef8:
			f.Val = v + r.unitOff
		case kFlag:
			f.Val = 0
			if v != 0 {
				f.Val = 1
			}
		case kStrp:
			f.Val = v
			if f.Bytes = r.strp(v, at); f.Bytes == nil {
				return -1
			}
		case kLineStrp:
			f.Val = v
			if f.Bytes = r.cstring(r.d.lineStr, ".debug_line_str", v, at); f.Bytes == nil {
				return -1
			}
		case kStrx1, kStrx2, kStrx3, kStrx4:
			return r.strx(f, v, at, pos)
		case kAddrx1, kAddrx2, kAddrx3, kAddrx4:
			return r.addrx(f, v, at, pos)
		default: // addr, data, ref_addr, ref_sig8, sec_offset, supplementary forms
			f.Val = v
		}
		return pos
	}
	switch kind {
	case kUdata, kRefUdata, kAddrx, kStrx, kLoclistx, kRnglistx:
		at := pos
		var v uint64
		if pos < len(info) && info[pos] < 0x80 {
			v = uint64(info[pos])
			pos++
		} else if v, pos = uleb(info, pos); pos < 0 {
			r.fail(uint64(at), errLEB)
			return -1
		}
		switch kind {
		case kUdata:
			f.Val = v
		case kRefUdata:
			f.Val = v + r.unitOff
		case kAddrx:
			return r.addrx(f, v, at, pos)
		case kStrx:
			return r.strx(f, v, at, pos)
		case kLoclistx:
			return r.listx(f, v, at, pos, r.d.locLists, ".debug_loclists", r.locBase)
		default:
			return r.listx(f, v, at, pos, r.d.rngLists, ".debug_rnglists", r.rngBase)
		}
		return pos
	case kSdata:
		v, n := sleb(info, pos)
		if n < 0 {
			r.fail(uint64(pos), errLEB)
			return -1
		}
		f.Val, f.Signed = uint64(v), true
		return n
	case kImplicitConst:
		f.Val, f.Signed = uint64(implicit), true
		return pos
	case kFlagPresent:
		f.Val = 1
		return pos
	case kString:
		i := bytes.IndexByte(info[pos:], 0)
		if i < 0 {
			r.truncated(pos, "DW_FORM_string")
			return -1
		}
		f.Bytes = info[pos : pos+i : pos+i]
		return pos + i + 1
	case kBlock1, kBlock2, kBlock4, kBlock, kExprloc, kData16:
		at := pos
		var n uint64
		switch kind {
		case kData16:
			n = 16
		case kBlock1:
			if pos >= len(info) {
				r.truncated(at, "block length")
				return -1
			}
			n = uint64(info[pos])
			pos++
		case kBlock2:
			if 2 > len(info)-pos {
				r.truncated(at, "block length")
				return -1
			}
			n = uint64(get16(info[pos:], r.le))
			pos += 2
		case kBlock4:
			if 4 > len(info)-pos {
				r.truncated(at, "block length")
				return -1
			}
			n = uint64(get32(info[pos:], r.le))
			pos += 4
		default:
			if n, pos = uleb(info, pos); pos < 0 {
				r.fail(uint64(at), errLEB)
				return -1
			}
		}
		if n > uint64(len(info)-pos) {
			r.truncated(at, fmt.Sprintf("block of %d bytes", n))
			return -1
		}
		end := pos + int(n)
		f.Bytes = info[pos:end:end]
		f.Val = n
		return end
	case kIndirect:
		at := pos
		form, n := uleb(info, pos)
		if n < 0 {
			r.fail(uint64(at), errLEB)
			return -1
		}
		if form > 0xffff || Form(form) == FormIndirect {
			r.fail(uint64(at), fmt.Errorf("bad DW_FORM_indirect form 0x%x", form))
			return -1
		}
		f.Form = Form(form)
		f.Class = formClass(f.Attr, f.Form, r.version)
		k, sz := formKind(f.Form, r.version, r.addrSize, r.offSize)
		if k == kImplicitConst {
			r.fail(uint64(at), errors.New("DW_FORM_implicit_const through DW_FORM_indirect"))
			return -1
		}
		return r.value(f, k, sz, 0, n)
	}
	r.fail(uint64(pos), fmt.Errorf("unknown form 0x%x (%v)", uint16(f.Form), f.Form))
	return -1
}

// cstring returns the NUL-terminated string at off in sec, or nil after
// recording an error (at is the attribute's offset).
func (r *Reader) cstring(sec []byte, name string, off uint64, at int) []byte {
	if off >= uint64(len(sec)) {
		r.fail(uint64(at), fmt.Errorf("string offset 0x%x past the end of %s (size 0x%x)", off, name, len(sec)))
		return nil
	}
	s := sec[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		r.fail(uint64(at), fmt.Errorf("%w: unterminated string at %s+0x%x", ErrTruncated, name, off))
		return nil
	}
	return s[:i:i]
}

// strp returns the .debug_str string at off, or nil after recording an
// error.
func (r *Reader) strp(off uint64, at int) []byte {
	n, ok := strLen(r.nul, off)
	if !ok || off >= uint64(len(r.str)) {
		return r.cstring(r.str, ".debug_str", off, at) // reports the error
	}
	return r.str[off : off+uint64(n) : off+uint64(n)]
}

// indexed reads the idx-th size-byte entry of sec after base; ok is false
// when it is out of range.
func indexed(sec []byte, base, idx uint64, size int, le bool) (uint64, bool) {
	n := uint64(len(sec))
	if base > n || idx >= (n-base)/uint64(size) {
		return 0, false
	}
	p := base + idx*uint64(size)
	return getN(sec[p:], size, le), true
}

// strx resolves a string index through .debug_str_offsets.
func (r *Reader) strx(f *Field, idx uint64, at, pos int) int {
	f.Val = idx
	if r.raw {
		return pos
	}
	off, ok := indexed(r.d.strOffsets, r.strOffBase, idx, r.offSize, r.le)
	if !ok {
		r.fail(uint64(at), fmt.Errorf("string index %d out of range of .debug_str_offsets (base 0x%x, size 0x%x)", idx, r.strOffBase, len(r.d.strOffsets)))
		return -1
	}
	f.Val = off
	if f.Bytes = r.strp(off, at); f.Bytes == nil {
		return -1
	}
	return pos
}

// addrx resolves an address index through .debug_addr.
func (r *Reader) addrx(f *Field, idx uint64, at, pos int) int {
	f.Val = idx
	if r.raw {
		return pos
	}
	v, ok := indexed(r.d.addr, r.addrBase, idx, r.addrSize, r.le)
	if !ok {
		r.fail(uint64(at), fmt.Errorf("address index %d out of range of .debug_addr (base 0x%x, size 0x%x)", idx, r.addrBase, len(r.d.addr)))
		return -1
	}
	f.Val = v
	return pos
}

// listx resolves a loclistx or rnglistx index through the offset array at
// base in sec to a section offset.
func (r *Reader) listx(f *Field, idx uint64, at, pos int, sec []byte, name string, base uint64) int {
	f.Val = idx
	if r.raw {
		return pos
	}
	v, ok := indexed(sec, base, idx, r.offSize, r.le)
	if !ok || v > uint64(len(sec))-min(base, uint64(len(sec))) {
		r.fail(uint64(at), fmt.Errorf("list index %d out of range of %s (base 0x%x, size 0x%x)", idx, name, base, len(sec)))
		return -1
	}
	f.Val = base + v
	return pos
}

// SkipChildren skips the children of the DIE that Next returned last, if
// it has any, so that Next returns its next sibling. It uses DW_AT_sibling
// when present and plausible.
func (r *Reader) SkipChildren() {
	if r.err != nil || !r.lastChildren {
		return
	}
	r.lastChildren = false
	if s := r.lastSibling; s != 0 && s >= uint64(r.pos) && s <= uint64(len(r.info)) {
		r.pos = int(s)
		return
	}
	info := r.info
	pos := r.pos
	for depth := 1; depth > 0; {
		if pos >= len(info) {
			// Some producers omit the final null entries of a unit.
			break
		}
		at := pos
		var code uint64
		if c := info[pos]; c < 0x80 {
			code = uint64(c)
			pos++
		} else if code, pos = uleb(info, pos); pos < 0 {
			r.fail(uint64(at), errLEB)
			return
		}
		if code == 0 {
			depth--
			continue
		}
		ab := r.tab.lookup(code)
		if ab == nil {
			r.fail(uint64(at), fmt.Errorf("abbreviation code %d not defined", code))
			return
		}
		if fs := int(ab.fixedSize); fs >= 0 {
			if fs > len(info)-pos {
				r.truncated(at, "DIE")
				return
			}
			pos += fs
		} else {
			for i := range ab.specs {
				s := &ab.specs[i]
				if pos = r.skip(s.kind, int(s.size), pos); pos < 0 {
					return
				}
			}
		}
		if ab.children {
			depth++
		}
	}
	r.pos = pos
}

// skip returns the position after a value of the given kind at pos, or -1
// on error.
func (r *Reader) skip(kind uint8, size int, pos int) int {
	info := r.info
	if size >= 0 {
		if size > len(info)-pos {
			r.truncated(pos, "attribute value")
			return -1
		}
		return pos + size
	}
	switch kind {
	case kUdata, kRefUdata, kAddrx, kStrx, kLoclistx, kRnglistx, kSdata:
		for i := pos; i < len(info) && i < pos+maxLEB; i++ {
			if info[i] < 0x80 {
				return i + 1
			}
		}
		r.fail(uint64(pos), errLEB)
		return -1
	case kString:
		i := bytes.IndexByte(info[pos:], 0)
		if i < 0 {
			r.truncated(pos, "DW_FORM_string")
			return -1
		}
		return pos + i + 1
	case kBlock1, kBlock2, kBlock4, kBlock, kExprloc, kIndirect:
		// Rare in the skip path: decode into a scratch field.
		var f Field
		return r.value(&f, kind, size, 0, pos)
	}
	r.fail(uint64(pos), fmt.Errorf("unknown form kind %d", kind))
	return -1
}
