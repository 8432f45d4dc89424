package dwarf

import (
	"fmt"
	"math"
	"slices"
)

// Fast paths of the DIE decoder, chosen per attribute when the
// abbreviation is parsed. They cover the forms that make up nearly all of a
// kernel's attributes; Next dispatches on them with one jump table.
const (
	fastNone     uint8 = iota // decode with Reader.value
	fastU1                    // fixed-size unsigned value stored as is
	fastU2                    //
	fastU4                    //
	fastU8                    //
	fastRef1                  // unit-relative reference
	fastRef2                  //
	fastRef4                  //
	fastRef8                  //
	fastStrp4                 // DW_FORM_strp, 32-bit DWARF
	fastStrp8                 // DW_FORM_strp, 64-bit DWARF
	fastFlag                  // DW_FORM_flag
	fastPresent               // DW_FORM_flag_present
	fastImplicit              // DW_FORM_implicit_const
)

// fastPath returns the fast path of a decoding kind and size.
func fastPath(kind uint8, size int) uint8 {
	switch kind {
	case kAddr, kData1, kData2, kData4, kData8, kRefAddr, kRefSig8, kSecOffset:
		switch size {
		case 1:
			return fastU1
		case 2:
			return fastU2
		case 4:
			return fastU4
		case 8:
			return fastU8
		}
	case kRef1:
		return fastRef1
	case kRef2:
		return fastRef2
	case kRef4:
		return fastRef4
	case kRef8:
		return fastRef8
	case kStrp:
		if size == 4 {
			return fastStrp4
		}
		return fastStrp8
	case kFlag:
		return fastFlag
	case kFlagPresent:
		return fastPresent
	case kImplicitConst:
		return fastImplicit
	}
	return fastNone
}

// attrSpec is one attribute of an abbreviation, with its decoding
// precomputed for the unit parameters of the table. It is 16 bytes.
type attrSpec struct {
	implicit int64  // value of DW_FORM_implicit_const
	attr     uint16 // Attr; DWARF attribute codes end at 0x3fff
	form     Form
	class    Class
	kind     uint8 // decoding kind (k* constants)
	fast     uint8 // fast* constant
	size     int8  // encoded size in bytes, -1 when variable
}

// abbrev is one abbreviation declaration.
type abbrev struct {
	specs []attrSpec
	code  uint32
	tag   Tag
	// fixedSize is the encoded size of all attributes when every one has a
	// fixed size (so skipping the DIE is a single addition), else -1.
	fixedSize int32
	// sibling is the index of the DW_AT_sibling reference in specs, or -1.
	sibling  int16
	children bool
}

// abbrevTable is the parsed abbreviation table at one offset.
type abbrevTable struct {
	// dense maps small codes to index+1 in list (0: undefined). Codes are
	// usually 1..n, so this is the common path; list is sorted by code for
	// the rest.
	dense []int32
	list  []abbrev
}

// lookup returns the abbreviation with the given code, or nil.
func (t *abbrevTable) lookup(code uint64) *abbrev {
	if code < uint64(len(t.dense)) {
		if i := t.dense[code]; i > 0 {
			return &t.list[i-1]
		}
		return nil
	}
	if code > math.MaxUint32 {
		return nil
	}
	i, ok := slices.BinarySearchFunc(t.list, uint32(code), func(a abbrev, c uint32) int {
		switch {
		case a.code < c:
			return -1
		case a.code > c:
			return 1
		}
		return 0
	})
	if !ok {
		return nil
	}
	return &t.list[i]
}

// abbrevKey identifies a parsed table: the precomputed sizes and classes
// depend on the unit parameters as well as on the offset.
type abbrevKey struct {
	off      uint64
	version  uint16
	addrSize uint8
	format64 bool
}

// abbrevScratch is a Reader's private abbreviation storage. Tables used by
// a single unit (in a kernel every unit has its own) are parsed into it,
// reusing its memory from unit to unit, instead of being cached in Data:
// that saves allocations and keeps the table in cache. The table stays valid until the Reader seeks to another unit with
// a private table.
type abbrevScratch struct {
	list  []abbrev
	ends  []int
	specs []attrSpec
	dense []int32
	table abbrevTable
	key   abbrevKey // the table in table, when valid is set
	valid bool
}

// abbrevTable returns the table of unit u. Tables that Units found shared
// by several units (or that it has not seen) are parsed once and cached;
// the parse runs outside the lock and, when two readers race, the first
// stored table wins. Tables of a single unit are parsed into sc, the
// Reader's private storage, unless they have been parsed that way
// maxPrivateParses times already (by Readers created per lookup, say).
func (d *Data) abbrevTable(u *Unit, sc *abbrevScratch) (*abbrevTable, error) {
	key := abbrevKey{u.AbbrevOffset, u.Version, u.AddrSize, u.Format64}
	d.mu.Lock()
	t := d.abbrevs[key]
	private := d.abbrevUses[u.AbbrevOffset] == 1
	if t == nil && private && !(sc.valid && sc.key == key) {
		// A private table parsed again and again (a fresh Reader per
		// lookup) is cached after all.
		if d.privateParses[key]++; d.privateParses[key] > maxPrivateParses {
			private = false
		}
	}
	d.mu.Unlock()
	if t != nil {
		return t, nil
	}
	if private {
		if sc.valid && sc.key == key {
			return &sc.table, nil
		}
		sc.valid = false
		if err := d.parseAbbrev(u, sc); err != nil {
			return nil, err
		}
		sc.key, sc.valid = key, true
		return &sc.table, nil
	}
	sc.valid = false // parseAbbrev overwrites the private table
	if err := d.parseAbbrev(u, sc); err != nil {
		return nil, err
	}
	// Copy into exact-size storage owned by the cache.
	t = &abbrevTable{list: slices.Clone(sc.table.list), dense: slices.Clone(sc.table.dense)}
	all := slices.Clone(sc.specs)
	for i := range t.list {
		// parseAbbrev slices specs with two indexes, so the capacity left
		// gives the start in sc.specs.
		a := &t.list[i]
		off := cap(sc.specs) - cap(a.specs)
		a.specs = all[off : off+len(a.specs) : off+len(a.specs)]
	}
	d.mu.Lock()
	if old := d.abbrevs[key]; old != nil {
		t = old
	} else {
		d.abbrevs[key] = t
	}
	d.mu.Unlock()
	return t, nil
}

// maxPrivateParses is how often a table of a single unit is parsed into
// Readers' private storage before it is cached in Data.
const maxPrivateParses = 2

// maxAbbrevAttrs bounds the attributes of one abbreviation. DWARF allows
// each attribute once per DIE and producers use a few dozen at most;
// without a bound, a small abbreviation with thousands of zero-size
// attributes (DW_FORM_flag_present), used by every DIE, makes decoding
// time the product of the two section sizes.
const maxAbbrevAttrs = 512

// maxAttr is the last attribute code DWARF defines (DW_AT_hi_user); an
// abbreviation naming a later one is refused, and AttrSet has a bit for
// each code up to it.
const maxAttr = 0x3fff

// maxDenseSlack bounds the dense code index: it is used only when it is at
// most this much larger than the number of abbreviations, so hostile codes
// cannot make it big.
const maxDenseSlack = 256

// parseAbbrev parses the abbreviation table of unit u into sc.table,
// whose slices share sc's buffers.
func (d *Data) parseAbbrev(u *Unit, sc *abbrevScratch) error {
	b := d.newBuf(".debug_abbrev", d.abbrev, u.AbbrevOffset, u.Index)
	offSize := u.OffsetSize()
	sup := d.partAtAbbrev(u.AbbrevOffset) > 0
	list, ends, specs := sc.list[:0], sc.ends[:0], sc.specs[:0]
	defer func() { sc.list, sc.ends, sc.specs = list, ends, specs }()
	for {
		codeOff := b.off
		code := b.uleb()
		if b.err != nil {
			return b.err
		}
		if code == 0 {
			break
		}
		a := abbrev{code: uint32(code), sibling: -1}
		tag := b.uleb()
		if code > math.MaxUint32 || tag > math.MaxUint32 {
			b.fail(uint64(codeOff), fmt.Errorf("abbreviation code %d or tag 0x%x out of range", code, tag))
		}
		a.tag = Tag(tag)
		switch c := b.u8(); c {
		case 0:
		case 1:
			a.children = true
		default:
			b.fail(uint64(b.off-1), fmt.Errorf("abbreviation %d: bad children flag %d", code, c))
		}
		start := len(specs)
		fixed := 0
		for b.err == nil {
			at := b.off
			attr := b.uleb()
			form := b.uleb()
			if attr == 0 && form == 0 {
				break
			}
			if attr > maxAttr || form > math.MaxUint16 {
				b.fail(uint64(at), fmt.Errorf("abbreviation %d: attribute 0x%x form 0x%x out of range (attributes end at DW_AT_hi_user, 0x%x)", code, attr, form, maxAttr))
				break
			}
			if len(specs)-start >= maxAbbrevAttrs {
				b.fail(uint64(at), fmt.Errorf("abbreviation %d has more than %d attributes", code, maxAbbrevAttrs))
				break
			}
			s := attrSpec{attr: uint16(attr), form: Form(form)}
			if s.form == FormImplicitConst {
				s.implicit = b.sleb()
			}
			kind, size := formKind(s.form, u.Version, int(u.AddrSize), offSize)
			s.kind, s.size = kind, int8(size)
			s.class = formClass(Attr(s.attr), s.form, u.Version)
			s.fast = fastPath(kind, size)
			if kind == kRefAddr && sup {
				s.fast = fastNone // Reader.value moves it to the supplement's offsets
			}
			if Attr(s.attr) == AttrSibling && s.class == ClassReference && a.sibling < 0 && len(specs)-start <= math.MaxInt16 {
				a.sibling = int16(len(specs) - start)
			}
			if size < 0 || fixed < 0 || fixed > math.MaxInt32-16 {
				fixed = -1
			} else {
				fixed += size
			}
			specs = append(specs, s)
		}
		if b.err != nil {
			return b.err
		}
		a.fixedSize = int32(fixed)
		list = append(list, a)
		ends = append(ends, len(specs))
	}
	start := 0
	for i := range list {
		// Two-index slices: see abbrevTable.
		list[i].specs = specs[start:ends[i]]
		start = ends[i]
	}
	if !slices.IsSortedFunc(list, cmpCode) {
		slices.SortStableFunc(list, cmpCode)
	}
	var maxCode uint32
	for i := range list {
		if i > 0 && list[i].code == list[i-1].code {
			return d.decodeError(".debug_abbrev", u.AbbrevOffset, u.Index,
				fmt.Errorf("abbreviation code %d defined twice", list[i].code))
		}
		maxCode = max(maxCode, list[i].code)
	}
	dense := sc.dense[:0]
	if len(list) > 0 && uint64(maxCode) <= uint64(len(list))+maxDenseSlack {
		dense = slices.Grow(dense, int(maxCode)+1)[:maxCode+1]
		clear(dense)
		for i := range list {
			dense[list[i].code] = int32(i + 1)
		}
	}
	sc.dense = dense
	sc.table = abbrevTable{list: list, dense: dense}
	return nil
}

func cmpCode(x, y abbrev) int {
	switch {
	case x.code < y.code:
		return -1
	case x.code > y.code:
		return 1
	}
	return 0
}
