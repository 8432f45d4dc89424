package btf

import "encoding/binary"

// Identity, equivalence and compatibility
//
// A TypeID names one entry of a type section; two entries are identical when
// their words are equal. Dedup decides equivalence the way libbpf does: two
// types are equivalent when their graphs match, where a struct or union may
// stand for a FWD of the same name and kind, and an enum without values
// (vlen 0, a forward-declared enum) for any enum or enum64 of the same name.
// Equivalent types collapse onto the first-seen ("canonical") one.

// Types is a BTF type section in raw encoding: each type is its struct
// btf_type (name offset, info, size-or-type) followed by its kind-specific
// words, all host-endian uint32. Id i (FirstID() <= i < FirstID()+Len()) is
// the i-FirstID()'th type; id 0 is void. Names are offsets into Strings.
//
// Builders (AddInt, AddStruct, ...) append one type each and return its id.
// A builder given invalid arguments returns 0 and records the first such
// error, which Err, Append, Marshal and Dedup report.
type Types struct {
	// Strings holds the names. For split BTF it must be a split table on
	// Base.Strings (see NewSplitTypes).
	Strings *Strings
	// Base is the base of split BTF (the kernel's types for a module), or nil.
	// Ids below FirstID() and string offsets below Strings' own section
	// address the base, which is never modified.
	Base *Types

	words []uint32 // all own types, back to back
	offs  []uint32 // offs[i]: index in words of type FirstID()+i
	err   error    // first builder error

	origin *Types // what a View was taken from, nil otherwise

	// fold, once a dedup has folded the types (Deduplication.Fold),
	// redirects the reads of folded types to their canonical types
	// (foldedID).
	fold []uint32

	// valid counts the first own types known to refer only to existing
	// types and string offsets: Parse checked them, or a Splicer made them.
	// The dedup does not check them again.
	valid int

	// dedupPrep, on a base loaded prepared, is the dedup's prep of it
	// (writeSnapshot), read by each dedup on the base; releasePrep, if
	// set, is called with it whenever it is not needed for a while (see
	// LoadPrepared).
	dedupPrep   []byte
	releasePrep func([]byte)
	// prepChecked: the tables in dedupPrep were checked when loaded
	// (LoadPreparedFrom), or the caller vouches that they are unchanged
	// since such a check (LoadPreparedTrusted; a dedup's reads of them are
	// bounded all the same), so a dedup decodes them without going over
	// them.
	prepChecked bool

	bigEndian bool // Parse read big-endian BTF
}

// SourceByteOrder returns the byte order of the raw BTF that Parse read t
// from: a base must have its module's byte order. Types built here, or
// loaded prepared, are little endian.
func (t *Types) SourceByteOrder() binary.ByteOrder {
	if t.bigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// View returns a read-only copy of t as it is now, which another goroutine
// may read while t grows: it shares t's arrays up to their current lengths
// (growing t only appends) and a copy of its string table's header, good
// for Size and for no lookups. A dedup started on a View finishes on the
// types it was taken from (see StartPipelinedDedup).
func (t *Types) View() *Types {
	origin := t
	if t.origin != nil {
		origin = t.origin
	}
	v := &Types{Base: t.Base, err: t.err, origin: origin, valid: t.valid, fold: t.fold,
		words: t.words[:len(t.words):len(t.words)], offs: t.offs[:len(t.offs):len(t.offs)]}
	if t.Strings != nil {
		strs := Strings{base: t.Strings.base, start: t.Strings.start, deduped: t.Strings.deduped,
			data: t.Strings.data[:len(t.Strings.data):len(t.Strings.data)]}
		v.Strings = &strs
	}
	return v
}

// NewTypes returns an empty, non-split type section naming its types in strs.
func NewTypes(strs *Strings) *Types {
	return &Types{Strings: strs}
}

// NewSplitTypes returns an empty split type section on base, with a new
// split string table on base.Strings.
func NewSplitTypes(base *Types) *Types {
	return &Types{Strings: NewSplitStrings(base.Strings), Base: base}
}

// Reset empties t for reuse, keeping its buffers.
func (t *Types) Reset() {
	t.words, t.offs, t.err, t.valid = t.words[:0], t.offs[:0], nil, 0
}

// Len returns the number of own types (void and base types excluded).
func (t *Types) Len() int { return len(t.offs) }

// FirstID returns the id of the first own type: 1, or the id after the
// base's last type for split BTF.
func (t *Types) FirstID() TypeID {
	if t.Base == nil {
		return 1
	}
	return t.Base.FirstID() + TypeID(t.Base.Len())
}

// NextID returns the id the next added type will get.
func (t *Types) NextID() TypeID { return t.FirstID() + TypeID(len(t.offs)) }

// Err returns the first error a builder ran into, if any.
func (t *Types) Err() error {
	if t.err != nil {
		return t.err
	}
	if t.Strings != nil {
		return t.Strings.Err()
	}
	return nil
}

// raw returns the words of type id (own or base), or nil for void and for
// ids outside the section.
func (t *Types) raw(id TypeID) []uint32 {
	first := t.FirstID()
	if id < first {
		if t.Base == nil || id == 0 {
			return nil
		}
		return t.Base.raw(id)
	}
	i := int(id - first)
	if i >= len(t.offs) {
		return nil
	}
	return t.typeAt(i)
}

// Type returns a read-only view of type id. Void and unknown ids give a view
// whose Kind is KindVoid.
func (t *Types) Type(id TypeID) Type { return Type{ID: id, w: t.raw(id)} }

// Kind returns the kind of type id (KindVoid for 0 or an unknown id).
func (t *Types) Kind(id TypeID) Kind { return t.Type(id).Kind() }

// NameOff returns the string offset of the name of type id.
func (t *Types) NameOff(id TypeID) uint32 { return t.Type(id).NameOff() }

// Name returns the name of type id ("" when anonymous).
func (t *Types) Name(id TypeID) string { return t.Strings.String(t.NameOff(id)) }

// Vlen returns the number of members, values, parameters or section entries.
func (t *Types) Vlen(id TypeID) int { return t.Type(id).Vlen() }

// KindFlag returns the kind flag of type id.
func (t *Types) KindFlag(id TypeID) bool { return t.Type(id).KindFlag() }

// Size returns the size word of type id (INT, ENUM, STRUCT, UNION, DATASEC,
// FLOAT, ENUM64).
func (t *Types) Size(id TypeID) uint32 { return t.Type(id).Size() }

// Ref returns the type word of type id (PTR, TYPEDEF, CONST, VOLATILE,
// RESTRICT, TYPE_TAG, FUNC, FUNC_PROTO's return type, VAR, DECL_TAG).
func (t *Types) Ref(id TypeID) TypeID { return t.Type(id).Ref() }

// Type is a read-only view of one type's raw words.
type Type struct {
	ID TypeID
	w  []uint32
}

// Kind returns the type's kind.
func (v Type) Kind() Kind {
	if len(v.w) < headerWords {
		return KindVoid
	}
	return infoKind(v.w[1])
}

// NameOff returns the string offset of the type's name (0 = anonymous).
func (v Type) NameOff() uint32 {
	if len(v.w) < headerWords {
		return 0
	}
	return v.w[0]
}

// Info returns the raw info word (vlen, kind, kind flag).
func (v Type) Info() uint32 {
	if len(v.w) < headerWords {
		return 0
	}
	return v.w[1]
}

// InfoReserved returns the bits of the info word that are reserved (zero in
// valid BTF; ParseLenient lets them through).
func (v Type) InfoReserved() uint32 { return v.Info() & infoReservedMask }

// Vlen returns the info word's vlen: the number of members, values,
// parameters or section entries (the linkage for FUNC).
func (v Type) Vlen() int { return infoVlen(v.Info()) }

// KindFlag returns the info word's kind flag.
func (v Type) KindFlag() bool { return v.Info()&infoKindFlag != 0 }

// Size returns the third word read as a size.
func (v Type) Size() uint32 {
	if len(v.w) < headerWords {
		return 0
	}
	return v.w[2]
}

// Ref returns the third word read as a type id.
func (v Type) Ref() TypeID { return TypeID(v.Size()) }

// extra returns word i after the btf_type header, or 0 if absent.
func (v Type) extra(i int) uint32 {
	if headerWords+i < len(v.w) {
		return v.w[headerWords+i]
	}
	return 0
}

// Int returns an INT's encoding bits (1 signed, 2 char, 4 bool), bit offset
// and number of bits.
func (v Type) Int() (encoding uint8, bitOffset, bits uint32) {
	x := v.extra(0)
	return uint8(x >> 24 & 0x0f), x >> 16 & 0xff, x & 0xff
}

// IntReserved returns the bits of an INT's word that no field uses
// (0xf000ff00; zero in valid BTF).
func (v Type) IntReserved() uint32 { return v.extra(0) & 0xf000ff00 }

// Array returns an ARRAY's element type, index type and element count.
func (v Type) Array() (elem, index TypeID, nelems uint32) {
	return TypeID(v.extra(0)), TypeID(v.extra(1)), v.extra(2)
}

// Member returns member i of a STRUCT or UNION.
func (v Type) Member(i int) Member {
	m := Member{Name: v.extra(3 * i), Type: TypeID(v.extra(3*i + 1))}
	off := v.extra(3*i + 2)
	if v.KindFlag() {
		m.BitOffset, m.BitfieldSize = off&0xffffff, off>>24
	} else {
		m.BitOffset = off
	}
	return m
}

// Param returns parameter i of a FUNC_PROTO.
func (v Type) Param(i int) Param {
	return Param{Name: v.extra(2 * i), Type: TypeID(v.extra(2*i + 1))}
}

// EnumValue returns value i of an ENUM or ENUM64, sign-extended when the
// kind flag says the enum is signed.
func (v Type) EnumValue(i int) EnumValue {
	if v.Kind() == KindEnum64 {
		lo, hi := v.extra(3*i+1), v.extra(3*i+2)
		return EnumValue{Name: v.extra(3 * i), Value: int64(uint64(hi)<<32 | uint64(lo))}
	}
	x := v.extra(2*i + 1)
	val := int64(x)
	if v.KindFlag() {
		val = int64(int32(x))
	}
	return EnumValue{Name: v.extra(2 * i), Value: val}
}

// Secinfo returns entry i of a DATASEC.
func (v Type) Secinfo(i int) VarSecinfo {
	return VarSecinfo{Type: TypeID(v.extra(3 * i)), Offset: v.extra(3*i + 1), Size: v.extra(3*i + 2)}
}

// Linkage returns the linkage of a FUNC (its vlen) or VAR.
func (v Type) Linkage() uint32 {
	if v.Kind() == KindFunc {
		return uint32(v.Vlen())
	}
	return v.extra(0)
}

// ComponentIdx returns a DECL_TAG's component index (-1: the type itself).
func (v Type) ComponentIdx() int32 { return int32(v.extra(0)) }

// Words returns a copy of the type's raw words.
func (v Type) Words() []uint32 { return append([]uint32(nil), v.w...) }
