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
	// Nearly every name fits the stack buffer: the string is then the
	// only allocation.
	var buf [128]byte
	b := t.appendTypeName(buf[:0], id, 0)
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
	switch en.Tag {
	case dwarf.TagBaseType, dwarf.TagTypedef:
		return appendNamed(b, "", en.Name)
	case dwarf.TagStructureType, dwarf.TagClassType:
		return appendNamed(b, "struct", en.Name)
	case dwarf.TagUnionType:
		return appendNamed(b, "union", en.Name)
	case dwarf.TagEnumerationType:
		return appendNamed(b, "enum", en.Name)
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

// appendNamed appends "kw name" ("name" without kw), "(anon)" for no name.
func appendNamed(b []byte, kw, name string) []byte {
	if kw != "" {
		b = append(b, kw...)
		b = append(b, ' ')
	}
	if name == "" {
		return append(b, "(anon)"...)
	}
	return append(b, name...)
}

// IsStructParam reports whether id, through const and typedef, is a struct
// (pahole's param__is_struct).
func (t *TypeTable) IsStructParam(id TypeID) bool { return t.isStructParam(id) }
