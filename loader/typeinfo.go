package loader

import (
	"strconv"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// TypeName renders type id as C-like text for people ("struct sk_buff *",
// "const char *"). It is for reports, not for matching. Names longer than
// maxTypeName bytes (the corpus kernel's longest is 128) are cut and end
// in "...": hostile DWARF can make a function type whose parameters are
// pointers to it, which would otherwise render exponentially long.
func (t *TypeTable) TypeName(id TypeID) string {
	b := t.appendTypeName(nil, id, 0)
	if len(b) > maxTypeName {
		b = append(b[:maxTypeName], "..."...)
	}
	return string(b)
}

// maxTypeName bounds the length of TypeName's result.
const maxTypeName = 1024

func (t *TypeTable) appendTypeName(b []byte, id TypeID, depth int) []byte {
	if len(b) > maxTypeName {
		return b // TypeName cuts it anyway
	}
	if id == 0 {
		return append(b, "void"...)
	}
	if depth > 16 || int(id) >= len(t.Entries) {
		return append(b, "..."...)
	}
	en := &t.Entries[id]
	named := func(kw string) []byte {
		if kw != "" {
			b = append(b, kw...)
			b = append(b, ' ')
		}
		if en.Name == "" {
			return append(b, "(anon)"...)
		}
		return append(b, en.Name...)
	}
	switch en.Tag {
	case dwarf.TagBaseType, dwarf.TagTypedef:
		return named("")
	case dwarf.TagStructureType, dwarf.TagClassType:
		return named("struct")
	case dwarf.TagUnionType:
		return named("union")
	case dwarf.TagEnumerationType:
		return named("enum")
	case dwarf.TagPointerType:
		b = t.appendTypeName(b, en.Type, depth+1)
		return append(b, " *"...)
	case dwarf.TagConstType:
		b = append(b, "const "...)
		return t.appendTypeName(b, en.Type, depth+1)
	case dwarf.TagVolatileType:
		b = append(b, "volatile "...)
		return t.appendTypeName(b, en.Type, depth+1)
	case dwarf.TagRestrictType:
		b = t.appendTypeName(b, en.Type, depth+1)
		return append(b, " restrict"...)
	case TagTypeTag:
		b = t.appendTypeName(b, en.Type, depth+1)
		b = append(b, " __tag("...)
		b = append(b, en.Name...)
		return append(b, ')')
	case dwarf.TagArrayType:
		b = t.appendTypeName(b, en.Type, depth+1)
		for _, d := range t.Dims[en.First : en.First+en.Count] {
			if len(b) > maxTypeName {
				break
			}
			b = append(b, '[')
			b = strconv.AppendUint(b, uint64(d), 10)
			b = append(b, ']')
		}
		return b
	case dwarf.TagSubroutineType:
		b = t.appendTypeName(b, en.Type, depth+1)
		b = append(b, " (*)("...)
		for i, p := range t.Params[en.First : en.First+en.Count] {
			if len(b) > maxTypeName {
				break
			}
			if i > 0 {
				b = append(b, ", "...)
			}
			b = t.appendTypeName(b, p.Type, depth+1)
		}
		if en.Flags&FlagVarargs != 0 {
			b = append(b, ", ..."...)
		}
		return append(b, ')')
	}
	return append(b, en.Tag.String()...)
}

// IsStructParam reports whether id, through const and typedef, is a struct
// (pahole's param__is_struct).
func (t *TypeTable) IsStructParam(id TypeID) bool { return t.isStructParam(id) }

// strip follows typedefs and qualifiers.
func (t *TypeTable) strip(id TypeID) TypeID {
	for n := 0; id != 0 && n < 64; n++ {
		switch t.Entries[id].Tag {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, TagTypeTag:
			id = t.Entries[id].Type
			continue
		}
		return id
	}
	return id
}

// naturalAlignment is pahole's tag__natural_alignment. A struct's
// alignment is computed once per memo (pahole caches it in the struct
// too): without that, DWARF whose structs contain several members of the
// same struct type (a cycle, or a deep DAG) takes exponential time.
func (t *TypeTable) naturalAlignment(id TypeID, depth int, memo map[TypeID]uint64) uint64 {
	a := uint64(1)
	if id != 0 && depth < 32 {
		en := &t.Entries[id]
		switch en.Tag {
		case dwarf.TagPointerType:
			a = uint64(t.Unit.AddrSize)
		case dwarf.TagBaseType, dwarf.TagEnumerationType:
			a = en.Size
		case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagUnionType:
			if ma, ok := memo[id]; ok {
				return ma
			}
			a = 0
			for _, m := range t.Members[en.First : en.First+en.Count] {
				if ma := t.naturalAlignment(t.strip(m.Type), depth+1, memo); ma > a {
					a = ma
				}
			}
			if a == 0 {
				a = 1
			}
			memo[id] = a
		case dwarf.TagArrayType:
			a = t.naturalAlignment(t.strip(en.Type), depth+1, memo)
		}
	}
	if a == 0 {
		return 1
	}
	return a
}

// InferPacked is a simplified pahole class__infer_packed_attributes: a
// struct without holes or tail padding that has a member at an offset not
// a multiple of its natural alignment, or whose size is not a multiple of
// its largest member alignment. (pahole also marks structs packed as a side
// effect of inspecting others; that is not reproduced.)
func (t *TypeTable) InferPacked(id TypeID) bool {
	en := &t.Entries[id]
	members := t.Members[en.First : en.First+en.Count]
	var end uint64 // in bits
	for _, m := range members {
		if m.BitOffset >= end+8 {
			return false // a byte hole
		}
		size := uint64(m.BitfieldSize)
		if size == 0 {
			size = t.strippedSize(m.Type) * 8
		}
		if e := m.BitOffset + size; e > end {
			end = e
		}
	}
	if en.Size*8 >= end+8 {
		return false // tail padding
	}
	maxAlign := uint64(1)
	memo := map[TypeID]uint64{}
	for _, m := range members {
		a := t.naturalAlignment(t.strip(m.Type), 0, memo)
		if a == 1 {
			continue
		}
		if a > maxAlign {
			maxAlign = a
		}
		if (m.BitOffset/8)%a != 0 {
			return true
		}
	}
	return en.Size%maxAlign != 0
}
