package loader

import "github.com/btfgate/btfgate/loader/dwarf"

// PackedInference is pahole's class__infer_packed_attributes over one
// compile unit's type table, with the state pahole keeps in its types
// (dwarves.c; spec §2.5, "uncertain parameter location").
//
// pahole decides once per struct and per CU, and deciding on one struct
// can decide others: a struct that has holes or tail padding is not packed,
// but each struct-typed member of it at an offset that is not a multiple of
// that member type's natural alignment is then marked packed
// (type__check_structs_at_unnatural_alignments), whatever was or would be
// found for it on its own. Answers therefore depend on the order of the
// questions: ask Packed in pahole's order (functions in table order, their
// parameters in order, stopping at a function's first packed parameter).
//
// Member layout is pahole's as class_member__cache_byte_size leaves it:
// the byte offset of a bitfield is that of its storage unit (a multiple of
// the size of the bitfield's type, counted from its bit offset), the byte
// size of a member is its type's (DW_AT_byte_size of a member is not
// kept). Natural alignments are pahole's tag__natural_alignment: a
// pointer's is the unit's address size, a base type's or an enum's its
// size, a struct's or union's the largest of its members', an array's its
// element type's. So on i386 a struct holding a u64 at a 4-byte offset is
// packed, as pahole says, though the C ABI aligns it there. With -J pahole
// ignores DW_AT_alignment, and so does this.
//
// Not reproduced (C++ or hostile DWARF only): inheritance entries,
// bitfields whose type has no size (pahole then guesses from the type's
// name), and struct cycles by value deeper than maxPackedDepth, which crash
// pahole.
//
// A PackedInference is for one goroutine.
type PackedInference struct {
	t     *TypeTable
	state map[TypeID]packedState
	align map[TypeID]uint16 // pahole caches a struct's natural alignment in 16 bits
	holes map[TypeID]bool   // class__find_holes: padding or a byte hole
}

type packedState uint8

const (
	packedInferred packedState = 1 << iota // pahole's packed_attributes_inferred
	packedYes                              // pahole's is_packed
)

// maxPackedDepth bounds the recursion through nested struct, union and
// array types.
const maxPackedDepth = 64

// NewPackedInference starts pahole's packed inference for t's unit: no
// struct decided yet.
func NewPackedInference(t *TypeTable) *PackedInference {
	return &PackedInference{t: t}
}

// Packed is class__infer_packed_attributes for the struct id; false for
// any other kind of type.
func (p *PackedInference) Packed(id TypeID) bool {
	if id == 0 || int(id) >= len(p.t.Entries) || !isStructTag(p.t.Entries[id].Tag) {
		return false
	}
	if p.state == nil {
		p.state = map[TypeID]packedState{}
		p.align = map[TypeID]uint16{}
		p.holes = map[TypeID]bool{}
	}
	if s := p.state[id]; s&packedInferred != 0 {
		return s&packedYes != 0
	}
	packed := false
	if p.hasHoles(id) {
		p.markUnnaturalMembers(id)
	} else {
		packed = p.unnatural(id)
	}
	s := packedInferred
	if packed {
		s |= packedYes
	}
	p.state[id] = s
	return packed
}

// unnatural is the rest of class__infer_packed_attributes for a struct
// without holes or padding: a member at an offset its natural alignment
// does not divide, or a size the largest member alignment does not divide.
func (p *PackedInference) unnatural(id TypeID) bool {
	t := p.t
	en := &t.Entries[id]
	maxAlign := uint16(1)
	for i := range t.Members[en.First : en.First+en.Count] {
		m := &t.Members[en.First+uint32(i)]
		a := p.naturalAlignment(p.strip(m.Type), 0)
		if a == 1 {
			continue
		}
		if uint64(maxAlign) < a {
			maxAlign = uint16(a)
		}
		if uint64(p.layout(m).byteOffset)%a != 0 {
			return true
		}
	}
	// pahole divides by the truncated maximum; 0 would crash it.
	return maxAlign != 0 && uint32(en.Size)%uint32(maxAlign) != 0
}

// markUnnaturalMembers is type__check_structs_at_unnatural_alignments:
// the struct type of each member at an offset not a multiple of its
// natural alignment is decided packed.
func (p *PackedInference) markUnnaturalMembers(id TypeID) {
	t := p.t
	en := &t.Entries[id]
	for i := range t.Members[en.First : en.First+en.Count] {
		m := &t.Members[en.First+uint32(i)]
		mt := p.strip(m.Type)
		if mt == 0 || !isStructTag(t.Entries[mt].Tag) {
			continue
		}
		if uint64(p.layout(m).byteOffset)%p.naturalAlignment(mt, 0) != 0 {
			p.state[mt] = packedInferred | packedYes
		}
	}
}

// memberLayout is what pahole's class_member__cache_byte_size computes.
type memberLayout struct {
	bitOffset  uint32
	byteOffset uint32
	byteSize   uint64
	bitSize    uint32 // byteSize*8
	bitfield   uint8  // pahole keeps DW_AT_bit_size in 8 bits
}

// layout is class_member__cache_byte_size for one member.
func (p *PackedInference) layout(m *Member) memberLayout {
	t := p.t
	l := memberLayout{bitOffset: uint32(m.BitOffset), byteOffset: m.ByteOffset, bitfield: uint8(m.BitfieldSize)}
	if l.bitfield == 0 {
		l.byteSize = t.tagSize(m.Type, 0)
		l.bitSize = uint32(l.byteSize * 8)
		return l
	}
	l.byteSize = t.tagSize(p.strip(m.Type), 0)
	l.bitSize = uint32(l.byteSize * 8)
	if l.byteSize == 0 || l.bitSize == 0 {
		return l
	}
	// The bit offset within the byte at ByteOffset: for DWARF 2-4, what
	// pahole derives from DW_AT_bit_offset; for DW_AT_data_bit_offset,
	// below 8. pahole keeps it in an int8_t.
	bfo := int8(l.bitOffset - l.byteOffset*8)
	l.bitOffset = l.byteOffset*8 + uint32(int32(bfo))
	if bfo < 0 {
		bfo = int8(int32(bfo) + int32(l.bitSize))
		l.byteOffset -= uint32(l.byteSize)
		l.bitOffset = l.byteOffset*8 + uint32(int32(bfo))
	}
	bfo = int8(uint64(int64(bfo)) + uint64(l.byteOffset)%l.byteSize*8)
	l.byteOffset = l.bitOffset / l.bitSize * l.bitSize / 8
	// C compares the int8 with the uint32 as unsigned: negative is large.
	if uint32(int32(bfo)) >= l.bitSize {
		l.byteOffset += uint32(l.byteSize)
	}
	return l
}

// hasHoles is class__find_holes' verdict as class__infer_packed_attributes
// reads it: a byte hole between members (its 8-bit counter not wrapped to
// 0), or tail padding (in pahole's 16 bits). It is cached per struct.
func (p *PackedInference) hasHoles(id TypeID) bool {
	if h, ok := p.holes[id]; ok {
		return h
	}
	t := p.t
	en := &t.Entries[id]
	size := uint32(en.Size)
	curBitfieldEnd, curBitfieldSize := size*8, uint32(0)
	lastSeenBit := uint32(0)
	inBitfield := false
	nrHoles := uint8(0)
	for i := range t.Members[en.First : en.First+en.Count] {
		l := p.layout(&t.Members[en.First+uint32(i)])
		bitStart := l.bitOffset
		bitEnd := bitStart + l.byteSize32()*8
		if l.bitfield != 0 {
			bitEnd = bitStart + uint32(l.bitfield)
		}
		var byteHoles int32
		if inBitfield {
			lastSeenBit = min(bitStart, curBitfieldEnd)
		}
		if l.bitfield != 0 {
			alignedStart := l.byteOffset * 8
			if lastSeenBit < alignedStart && alignedStart <= bitStart {
				byteHoles = int32(l.byteOffset - lastSeenBit/8)
				lastSeenBit = alignedStart
			}
		} else {
			byteHoles = int32(bitStart/8 - lastSeenBit/8)
		}
		lastSeenBit = bitEnd
		if l.bitfield != 0 {
			inBitfield = true
			if bitEnd > curBitfieldEnd || l.bitSize > curBitfieldSize {
				curBitfieldSize = l.bitSize
				curBitfieldEnd = l.byteOffset*8 + curBitfieldSize
				if bitEnd > curBitfieldEnd {
					curBitfieldEnd += curBitfieldSize
				}
			}
		} else {
			inBitfield = false
			curBitfieldSize = 0
			curBitfieldEnd = bitEnd
		}
		if byteHoles > 0 {
			nrHoles++
		}
	}
	if inBitfield {
		lastSeenBit = min(size*8, curBitfieldEnd)
	}
	padding := uint16(size - lastSeenBit/8)
	h := padding != 0 || nrHoles != 0
	p.holes[id] = h
	return h
}

// byteSize32 is the byte size as pahole's 32-bit bit arithmetic sees it.
func (l *memberLayout) byteSize32() uint32 { return uint32(l.byteSize) }

// naturalAlignment is tag__natural_alignment of the (stripped) type id.
func (p *PackedInference) naturalAlignment(id TypeID, depth int) uint64 {
	if id == 0 || depth > maxPackedDepth {
		return 1
	}
	t := p.t
	en := &t.Entries[id]
	var a uint64
	switch en.Tag {
	case dwarf.TagPointerType:
		a = uint64(t.Unit.AddrSize)
	case dwarf.TagBaseType:
		a = uint64(uint16(en.Size*8) / 8) // pahole's 16-bit bit_size
	case dwarf.TagEnumerationType:
		a = uint64(uint32(en.Size*8) / 8)
	case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
		a = uint64(p.typeAlignment(id, depth))
	case dwarf.TagArrayType:
		a = p.naturalAlignment(p.strip(en.Type), depth+1)
	default:
		a = 1
	}
	if a == 0 {
		return 1
	}
	return a
}

// typeAlignment is type__natural_alignment: the largest natural alignment
// of the members, cached when not 0.
func (p *PackedInference) typeAlignment(id TypeID, depth int) uint16 {
	if a := p.align[id]; a != 0 {
		return a
	}
	t := p.t
	en := &t.Entries[id]
	var a uint16
	for _, m := range t.Members[en.First : en.First+en.Count] {
		mt := p.strip(m.Type)
		if mt == 0 {
			continue
		}
		if ma := p.naturalAlignment(mt, depth+1); uint64(a) < ma {
			a = uint16(ma)
		}
	}
	if a != 0 {
		p.align[id] = a
	}
	return a
}

// strip is tag__strip_typedefs_and_modifiers: typedefs, const, volatile,
// restrict and _Atomic.
func (p *PackedInference) strip(id TypeID) TypeID {
	t := p.t
	for n := 0; id != 0 && int(id) < len(t.Entries) && n < maxPackedDepth; n++ {
		switch t.Entries[id].Tag {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagAtomicType:
			id = t.Entries[id].Type
			continue
		}
		return id
	}
	return id
}

// isStructTag is pahole's tag__is_struct.
func isStructTag(tag dwarf.Tag) bool {
	return tag == dwarf.TagStructureType || tag == dwarf.TagClassType || tag == dwarf.TagInterfaceType
}
