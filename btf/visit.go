package btf

import "fmt"

// fieldLayout says where the words of one sort (type ids, or string offsets)
// sit in a type of some kind: up to two fixed word indexes, then one word in
// each vlen element (elements start after the btf_type header).
type fieldLayout struct {
	fixed  [2]uint8 // word indexes within the type
	nfixed uint8
	stride uint8 // words per vlen element holding such a field; 0: none
	elem   uint8 // index of the field within an element
}

// idFields describes the type-id words of kind k, as libbpf's
// btf_field_iter (BTF_FIELD_ITER_IDS) visits them, in the same order.
func idFields(k Kind) fieldLayout {
	switch k {
	case KindFwd, KindConst, KindVolatile, KindRestrict, KindPtr, KindTypedef,
		KindFunc, KindVar, KindDeclTag, KindTypeTag:
		return fieldLayout{fixed: [2]uint8{2}, nfixed: 1}
	case KindArray:
		return fieldLayout{fixed: [2]uint8{3, 4}, nfixed: 2}
	case KindStruct, KindUnion:
		return fieldLayout{stride: 3, elem: 1}
	case KindFuncProto:
		return fieldLayout{fixed: [2]uint8{2}, nfixed: 1, stride: 2, elem: 1}
	case KindDatasec:
		return fieldLayout{stride: 3, elem: 0}
	}
	return fieldLayout{} // INT, FLOAT, ENUM, ENUM64
}

// strFields describes the string-offset words of kind k, as libbpf's
// btf_field_iter (BTF_FIELD_ITER_STRS) visits them, in the same order.
func strFields(k Kind) fieldLayout {
	switch k {
	case KindEnum, KindFuncProto:
		return fieldLayout{nfixed: 1, stride: 2}
	case KindEnum64, KindStruct, KindUnion:
		return fieldLayout{nfixed: 1, stride: 3}
	}
	return fieldLayout{nfixed: 1} // the name of every other kind
}

// forEachField calls fn with a pointer to every word of w (one type) that
// layout l describes, in libbpf's order; fn returning false stops the walk.
func forEachField(w []uint32, l fieldLayout, fn func(p *uint32) bool) {
	for _, f := range l.fixed[:l.nfixed] {
		if !fn(&w[f]) {
			return
		}
	}
	if l.stride == 0 {
		return
	}
	for i := headerWords + int(l.elem); i < len(w); i += int(l.stride) {
		if !fn(&w[i]) {
			return
		}
	}
}

// typeAt returns own type i's words (i counts from 0).
func (t *Types) typeAt(i int) []uint32 {
	if c, ok := t.foldedID(i); ok {
		return t.raw(c)
	}
	start := t.offs[i]
	end := uint32(len(t.words))
	if i+1 < len(t.offs) {
		end = t.offs[i+1]
	}
	return t.words[start:end:end]
}

// firstAtLeast returns the index in w of the first word that layout l
// describes whose value is >= limit, or -1.
func firstAtLeast(w []uint32, l fieldLayout, limit uint64) int {
	for _, f := range l.fixed[:l.nfixed] {
		if uint64(w[f]) >= limit {
			return int(f)
		}
	}
	if l.stride != 0 {
		for i := headerWords + int(l.elem); i < len(w); i += int(l.stride) {
			if uint64(w[i]) >= limit {
				return i
			}
		}
	}
	return -1
}

// checkRefs verifies that every type id an own type refers to exists and
// every string offset lies in the string table. Builders cannot check ids
// (types may refer forward), so consumers call this first.
func (t *Types) checkRefs() error {
	if err := t.Err(); err != nil {
		return err
	}
	if t.Strings == nil {
		return fmt.Errorf("btf: types have no string table")
	}
	next := uint64(t.NextID())
	strSize := uint64(t.Strings.Size())
	first := t.FirstID()
	for i := range t.offs {
		w := t.typeAt(i)
		k := infoKind(w[1])
		if j := firstAtLeast(w, idFields(k), next); j >= 0 {
			return fmt.Errorf("btf: type %d (%v) refers to type %d, past the last type %d", first+TypeID(i), k, w[j], next-1)
		}
		if j := firstAtLeast(w, strFields(k), strSize); j >= 0 {
			return fmt.Errorf("btf: type %d (%v) has string offset %d past the string table (%d bytes)", first+TypeID(i), k, w[j], strSize)
		}
	}
	return nil
}
