package btf

import (
	"fmt"
	"math"
	"slices"
)

// maxTypes is libbpf's limit on the number of types (BTF_MAX_NR_TYPES).
const maxTypes = 0x7fffffff

// Member is one member of a STRUCT or UNION. BitOffset is the member's offset
// in bits from the start of the struct; BitfieldSize is its width in bits if
// it is a bitfield, else 0.
type Member struct {
	Name         uint32
	Type         TypeID
	BitOffset    uint32
	BitfieldSize uint32
}

// EnumValue is one enumerator of an ENUM or ENUM64.
type EnumValue struct {
	Name  uint32
	Value int64
}

// Param is one parameter of a FUNC_PROTO. A trailing {0, 0} marks varargs.
type Param struct {
	Name uint32
	Type TypeID
}

// VarSecinfo is one entry of a DATASEC: a VAR (or FUNC) at Offset, Size bytes.
type VarSecinfo struct {
	Type   TypeID
	Offset uint32
	Size   uint32
}

// Encoding bits of an INT.
const (
	IntSigned = 1 << 0
	IntChar   = 1 << 1
	IntBool   = 1 << 2
)

// Linkage of a FUNC (BTF_FUNC_*) and of a VAR (BTF_VAR_*).
const (
	FuncStatic = 0
	FuncGlobal = 1
	FuncExtern = 2

	VarStatic          = 0
	VarGlobalAllocated = 1
	VarGlobalExtern    = 2
)

// fail records the first builder error and returns the id builders return on
// failure, 0.
func (t *Types) fail(format string, args ...any) TypeID {
	if t.err == nil {
		t.err = fmt.Errorf("btf: adding type %d: "+format, append([]any{t.NextID()}, args...)...)
	}
	return 0
}

// quotedName returns " \"name\"" for a builder's error message, or "" if
// the name is empty or cannot be looked up (no string table, or a name
// offset into someone else's, as the converter's are).
func (t *Types) quotedName(name uint32) string {
	if name == 0 || t.Strings == nil || !t.Strings.valid(name) {
		return ""
	}
	return fmt.Sprintf(" %q", t.Strings.String(name))
}

// begin appends a type of n words whose header is (name, info, sizeOrType)
// and returns its id and its words, so that the caller fills the rest.
func (t *Types) begin(n int, name, info, sizeOrType uint32) (TypeID, []uint32) {
	if len(t.offs) >= maxTypes-int(t.FirstID()) || len(t.words)+n > math.MaxUint32 {
		return t.fail("too many types"), nil
	}
	id := t.NextID()
	start := len(t.words)
	t.offs = append(t.offs, uint32(start))
	t.words = slices.Grow(t.words, n)[:start+n]
	clear(t.words[start:])
	w := t.words[start : start+n : start+n]
	w[0], w[1], w[2] = name, info, sizeOrType
	return id, w
}

// AddInt appends INT name: size bytes, encoding IntSigned/IntChar/IntBool,
// and the bit offset and number of bits of the value.
func (t *Types) AddInt(name uint32, size uint32, encoding uint8, bitOffset, bits uint32) TypeID {
	if encoding&^(IntSigned|IntChar|IntBool) != 0 || bitOffset > 0xff || bits > 0xff {
		return t.fail("INT encoding %#x, bit offset %d, bits %d out of range", encoding, bitOffset, bits)
	}
	id, w := t.begin(headerWords+1, name, makeInfo(KindInt, 0, false), size)
	if w != nil {
		w[3] = uint32(encoding)<<24 | bitOffset<<16 | bits
	}
	return id
}

// AddFloat appends FLOAT name of size bytes.
func (t *Types) AddFloat(name uint32, size uint32) TypeID {
	id, _ := t.begin(headerWords, name, makeInfo(KindFloat, 0, false), size)
	return id
}

// AddRef appends a type that only refers to target: PTR, CONST, VOLATILE,
// RESTRICT, TYPEDEF (name is the typedef's name) or TYPE_TAG (name is the tag
// value), with the kind flag clear.
func (t *Types) AddRef(kind Kind, name uint32, target TypeID) TypeID {
	switch kind {
	case KindPtr, KindConst, KindVolatile, KindRestrict, KindTypedef, KindTypeTag:
	default:
		return t.fail("AddRef of kind %v", kind)
	}
	id, _ := t.begin(headerWords, name, makeInfo(kind, 0, false), uint32(target))
	return id
}

// AddTypeTag appends TYPE_TAG value -> target; kindFlag marks an attribute
// (__attribute__ rather than btf_type_tag).
func (t *Types) AddTypeTag(value uint32, target TypeID, kindFlag bool) TypeID {
	id, _ := t.begin(headerWords, value, makeInfo(KindTypeTag, 0, kindFlag), uint32(target))
	return id
}

// AddFwd appends a forward declaration of struct (or union) name.
func (t *Types) AddFwd(name uint32, union bool) TypeID {
	id, _ := t.begin(headerWords, name, makeInfo(KindFwd, 0, union), 0)
	return id
}

// AddArray appends an ARRAY of nelems elem, indexed by index.
func (t *Types) AddArray(elem, index TypeID, nelems uint32) TypeID {
	id, w := t.begin(headerWords+3, 0, makeInfo(KindArray, 0, false), 0)
	if w != nil {
		w[3], w[4], w[5] = uint32(elem), uint32(index), nelems
	}
	return id
}

// AddStruct appends a STRUCT (or UNION) of size bytes. As libbpf does, it
// sets the kind flag iff some member is a bitfield or not byte-aligned; each
// member's offset word is BitfieldSize<<24 | BitOffset.
func (t *Types) AddStruct(union bool, name, size uint32, members []Member) TypeID {
	kind := KindStruct
	if union {
		kind = KindUnion
	}
	if len(members) > maxVlen {
		return t.fail("%v%s with %d members, more than the %d BTF allows", kind, t.quotedName(name), len(members), maxVlen)
	}
	kflag := false
	for i, m := range members {
		bitfield := m.BitfieldSize != 0 || m.BitOffset%8 != 0
		if bitfield && (m.BitfieldSize > 0xff || m.BitOffset >= 1<<24) {
			return t.fail("member %d: bitfield size %d at bit offset %d out of range", i, m.BitfieldSize, m.BitOffset)
		}
		if union && m.BitOffset != 0 {
			return t.fail("union member %d at bit offset %d", i, m.BitOffset)
		}
		kflag = kflag || bitfield
	}
	id, w := t.begin(headerWords+3*len(members), name, makeInfo(kind, len(members), kflag), size)
	if w != nil {
		for i, m := range members {
			e := w[headerWords+3*i:]
			e[0], e[1], e[2] = m.Name, uint32(m.Type), m.BitfieldSize<<24|m.BitOffset
		}
	}
	return id
}

// AddEnum appends an ENUM of size bytes; signed sets the kind flag. Values
// are stored as their low 32 bits.
func (t *Types) AddEnum(name, size uint32, signed bool, values []EnumValue) TypeID {
	if len(values) > maxVlen {
		return t.fail("ENUM%s with %d values, more than the %d BTF allows", t.quotedName(name), len(values), maxVlen)
	}
	id, w := t.begin(headerWords+2*len(values), name, makeInfo(KindEnum, len(values), signed), size)
	if w != nil {
		for i, v := range values {
			w[headerWords+2*i], w[headerWords+2*i+1] = v.Name, uint32(v.Value)
		}
	}
	return id
}

// AddEnum64 appends an ENUM64 of size bytes; signed sets the kind flag.
func (t *Types) AddEnum64(name, size uint32, signed bool, values []EnumValue) TypeID {
	if len(values) > maxVlen {
		return t.fail("ENUM64%s with %d values, more than the %d BTF allows", t.quotedName(name), len(values), maxVlen)
	}
	id, w := t.begin(headerWords+3*len(values), name, makeInfo(KindEnum64, len(values), signed), size)
	if w != nil {
		for i, v := range values {
			e := w[headerWords+3*i:]
			e[0], e[1], e[2] = v.Name, uint32(uint64(v.Value)), uint32(uint64(v.Value)>>32)
		}
	}
	return id
}

// AddFuncProto appends a FUNC_PROTO returning ret (0 = void).
func (t *Types) AddFuncProto(ret TypeID, params []Param) TypeID {
	if len(params) > maxVlen {
		return t.fail("FUNC_PROTO with %d parameters, more than the %d BTF allows", len(params), maxVlen)
	}
	id, w := t.begin(headerWords+2*len(params), 0, makeInfo(KindFuncProto, len(params), false), uint32(ret))
	if w != nil {
		for i, p := range params {
			w[headerWords+2*i], w[headerWords+2*i+1] = p.Name, uint32(p.Type)
		}
	}
	return id
}

// AddFunc appends FUNC name of prototype proto with linkage (FuncStatic...).
func (t *Types) AddFunc(name uint32, proto TypeID, linkage uint16) TypeID {
	if linkage > FuncExtern {
		return t.fail("FUNC linkage %d", linkage)
	}
	id, _ := t.begin(headerWords, name, makeInfo(KindFunc, int(linkage), false), uint32(proto))
	return id
}

// AddVar appends VAR name of type typ with linkage (VarStatic...).
func (t *Types) AddVar(name uint32, typ TypeID, linkage uint32) TypeID {
	if linkage > VarGlobalExtern {
		return t.fail("VAR linkage %d", linkage)
	}
	id, w := t.begin(headerWords+1, name, makeInfo(KindVar, 0, false), uint32(typ))
	if w != nil {
		w[3] = linkage
	}
	return id
}

// AddDatasec appends DATASEC name of size bytes holding vars.
func (t *Types) AddDatasec(name, size uint32, vars []VarSecinfo) TypeID {
	if len(vars) > maxVlen {
		return t.fail("DATASEC%s with %d entries, more than the %d BTF allows", t.quotedName(name), len(vars), maxVlen)
	}
	id, w := t.begin(headerWords+3*len(vars), name, makeInfo(KindDatasec, len(vars), false), size)
	if w != nil {
		for i, v := range vars {
			e := w[headerWords+3*i:]
			e[0], e[1], e[2] = uint32(v.Type), v.Offset, v.Size
		}
	}
	return id
}

// AddDeclTag appends DECL_TAG value on target: on the type itself if
// componentIdx is -1, else on its member or parameter componentIdx.
func (t *Types) AddDeclTag(value uint32, target TypeID, componentIdx int32) TypeID {
	if componentIdx < -1 {
		return t.fail("DECL_TAG component index %d", componentIdx)
	}
	id, w := t.begin(headerWords+1, value, makeInfo(KindDeclTag, 0, false), uint32(target))
	if w != nil {
		w[3] = uint32(componentIdx)
	}
	return id
}
