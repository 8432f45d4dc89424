package btfdiff

import (
	"fmt"
	"math"

	"github.com/btfgate/btfgate/btf"
)

// btfTypeSize is the size of struct btf_type: name_off, info, size/type.
const btfTypeSize = 12

// rawType is one decoded struct btf_type. Its kind-specific data (members,
// parameters, enumerators, ...) is stored as host-order words in
// table.words from index extra on.
type rawType struct {
	off   uint32 // byte offset of the type in its blob's type section
	name  uint32 // name_off
	info  uint32 // vlen, kind and kind_flag
	st    uint32 // size or type, depending on the kind
	extra uint32 // index of the first kind-specific word in table.words
}

func (t *rawType) kind() Kind   { return Kind(t.info >> 24 & 0x1f) }
func (t *rawType) vlen() uint32 { return t.info & 0xffff }
func (t *rawType) kflag() bool  { return t.info>>31 != 0 }

// table is a decoded BTF blob: types indexed by id, with a split BTF's base
// types in front, so that every id it may reference resolves.
type table struct {
	name  string
	types []rawType // types[0] is void
	words []uint32
	strs  *strtab
	first uint32 // first id decoded from this blob (1 for base BTF)
}

// wordsPerType returns how many 32-bit words of kind-specific data follow
// a type of kind k with the given vlen, or -1 for a kind this decoder does
// not know.
func wordsPerType(k Kind, vlen uint32) int64 {
	v := int64(vlen)
	switch k {
	case btf.KindPtr, btf.KindFwd, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict,
		btf.KindFunc, btf.KindFloat, btf.KindTypeTag:
		return 0
	case btf.KindInt, btf.KindVar, btf.KindDeclTag:
		return 1
	case btf.KindArray:
		return 3
	case btf.KindStruct, btf.KindUnion, btf.KindDatasec, btf.KindEnum64:
		return 3 * v
	case btf.KindEnum, btf.KindFuncProto:
		return 2 * v
	}
	return -1
}

// decode parses a raw BTF blob. base is nil for base BTF, or the decoded
// base of a split BTF.
func decode(name string, data []byte, base *table) (*table, error) {
	h, err := parseHeader(data)
	if err != nil {
		return nil, &DecodeError{Name: name, Err: err}
	}
	body := data[h.hdrLen:]
	var baseStrs *strtab
	t := &table{name: name}
	if base != nil {
		baseStrs = base.strs
		// Full slice expressions: appending must not write into base.
		t.types = base.types[:len(base.types):len(base.types)]
		t.words = base.words[:len(base.words):len(base.words)]
	} else {
		t.types = make([]rawType, 1, 1+h.typeLen/btfTypeSize)
	}
	t.first = uint32(len(t.types))
	strOff := int64(h.hdrLen) + int64(h.strOff)
	t.strs, err = newStrtab(body[h.strOff:h.strOff+h.strLen], baseStrs)
	if err != nil {
		return nil, &DecodeError{Name: name, Offset: strOff, Err: err}
	}
	if err := t.decodeTypes(body[h.typeOff:h.typeOff+h.typeLen], h); err != nil {
		return nil, err
	}
	return t, nil
}

// decodeTypes decodes the type section and checks every string offset and
// type id in it.
func (t *table) decodeTypes(sec []byte, h header) error {
	o := h.order
	secOff := int64(h.hdrLen) + int64(h.typeOff)
	fail := func(pos int, format string, args ...any) error {
		return &DecodeError{Name: t.name, Offset: secOff + int64(pos), Err: fmt.Errorf(format, args...)}
	}
	for pos := 0; pos < len(sec); {
		if len(sec)-pos < btfTypeSize {
			return fail(pos, "type section ends inside a type header (%d bytes left)", len(sec)-pos)
		}
		if uint64(len(t.types)) >= math.MaxUint32 {
			return fail(pos, "more than 2^32-1 types")
		}
		rt := rawType{
			off:   uint32(pos),
			name:  o.Uint32(sec[pos:]),
			info:  o.Uint32(sec[pos+4:]),
			st:    o.Uint32(sec[pos+8:]),
			extra: uint32(len(t.words)),
		}
		id := len(t.types)
		k := rt.kind()
		n := wordsPerType(k, rt.vlen())
		if k == btf.KindVoid || n < 0 {
			return fail(pos, "type %d has unknown kind %d", id, uint8(k))
		}
		if !t.strs.valid(rt.name) {
			return fail(pos, "type %d (%s): name offset %d is outside the string section", id, k, rt.name)
		}
		pos += btfTypeSize
		if int64(len(sec)-pos) < 4*n {
			return fail(pos, "type %d (%s) with vlen %d needs %d more bytes, %d left", id, k, rt.vlen(), 4*n, len(sec)-pos)
		}
		for i := int64(0); i < n; i++ {
			t.words = append(t.words, o.Uint32(sec[pos:]))
			pos += 4
		}
		if uint64(len(t.words)) > math.MaxUint32 {
			return fail(pos, "more than 2^32-1 words of type data")
		}
		t.types = append(t.types, rt)
	}
	for id := t.first; id < uint32(len(t.types)); id++ {
		if err := t.check(id); err != nil {
			return fail(int(t.types[id].off), "type %d (%s): %v", id, t.types[id].kind(), err)
		}
	}
	return nil
}

// check verifies that the type ids and string offsets a type holds resolve.
func (t *table) check(id uint32) error {
	rt := &t.types[id]
	w := t.extraOf(rt)
	ntypes := uint64(len(t.types))
	badType := func(what string, i int, ref uint32) error {
		return fmt.Errorf("%s %d refers to type %d, beyond the last type %d", what, i, ref, ntypes-1)
	}
	badName := func(what string, i int, off uint32) error {
		return fmt.Errorf("%s %d: name offset %d is outside the string section", what, i, off)
	}
	switch rt.kind() {
	case btf.KindPtr, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindFunc,
		btf.KindFuncProto, btf.KindVar, btf.KindDeclTag, btf.KindTypeTag:
		if uint64(rt.st) >= ntypes {
			return badType("referenced type", 0, rt.st)
		}
	}
	switch rt.kind() {
	case btf.KindArray:
		for i, ref := range w[:2] {
			if uint64(ref) >= ntypes {
				return badType("array type/index", i, ref)
			}
		}
	case btf.KindStruct, btf.KindUnion:
		for i := 0; i+2 < len(w); i += 3 {
			if !t.strs.valid(w[i]) {
				return badName("member", i/3, w[i])
			}
			if uint64(w[i+1]) >= ntypes {
				return badType("member", i/3, w[i+1])
			}
		}
	case btf.KindEnum, btf.KindEnum64:
		step := 2
		if rt.kind() == btf.KindEnum64 {
			step = 3
		}
		for i := 0; i < len(w); i += step {
			if !t.strs.valid(w[i]) {
				return badName("enumerator", i/step, w[i])
			}
		}
	case btf.KindFuncProto:
		for i := 0; i+1 < len(w); i += 2 {
			if !t.strs.valid(w[i]) {
				return badName("parameter", i/2, w[i])
			}
			if uint64(w[i+1]) >= ntypes {
				return badType("parameter", i/2, w[i+1])
			}
		}
	case btf.KindDatasec:
		for i := 0; i+2 < len(w); i += 3 {
			if uint64(w[i]) >= ntypes {
				return badType("entry", i/3, w[i])
			}
		}
	}
	return nil
}

// extraOf returns the kind-specific words of rt.
func (t *table) extraOf(rt *rawType) []uint32 {
	n := wordsPerType(rt.kind(), rt.vlen())
	if n <= 0 {
		return nil
	}
	return t.words[rt.extra : int64(rt.extra)+n]
}
