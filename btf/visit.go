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

// Append splices frag, a type section built on its own (typically one compile
// unit's types with local ids 1..frag.Len()), onto the end of t. In each of
// frag's types, every type id r is rewritten: 0 stays 0; an id of frag's base
// (when frag is split BTF on t's base) stays; an own id of frag moves by
// t.NextID()-frag.FirstID(); an id past frag's last is "external" and becomes
// external[r-last-1]. External ids are not checked here (they may name a type
// appended later); Marshal and Dedup check every id. Each of frag's own
// strings is added to t.Strings in frag's table order (unless both share the
// table) and string offsets are rewritten to match.
//
// On error t's types are unchanged (strings added so far remain).
func (t *Types) Append(frag *Types, external []TypeID) error {
	if err := t.Err(); err != nil {
		return err
	}
	if err := frag.Err(); err != nil {
		return fmt.Errorf("btf: appending fragment: %w", err)
	}
	if frag.Base != nil && frag.Base != t.Base {
		return fmt.Errorf("btf: appending split types whose base is not the destination's base")
	}
	remapStrings := frag.Strings != t.Strings
	var strMap []uint32 // new offset of each byte of frag's own strings
	if remapStrings {
		t.scratch = t.Strings.remapBytes(frag.Strings, t.scratch[:0])
		strMap = t.scratch
		if err := t.Strings.Err(); err != nil {
			return err
		}
	}

	fragFirst := uint32(frag.FirstID())
	fragNext := fragFirst + uint32(frag.Len())
	shift := uint32(t.NextID()) - fragFirst
	strStart := frag.Strings.start
	oldWords, oldTypes := len(t.words), len(t.offs)
	t.words = append(grow(t.words, len(frag.words)), frag.words...)
	t.offs = grow(t.offs, len(frag.offs))
	for _, o := range frag.offs {
		t.offs = append(t.offs, o+uint32(oldWords))
	}
	fail := func(err error) error {
		t.words, t.offs = t.words[:oldWords], t.offs[:oldTypes]
		return err
	}
	// mapID rewrites one type-id word; it returns false for an id past the
	// fragment's last and its externals.
	mapID := func(p *uint32) bool {
		switch r := *p; {
		case r == 0 || r < fragFirst:
		case r < fragNext:
			*p = r + shift
		case int(r-fragNext) < len(external):
			*p = uint32(external[r-fragNext])
		default:
			return false
		}
		return true
	}
	// mapStr rewrites one string-offset word; false for one past the table.
	mapStr := func(p *uint32) bool {
		if *p < strStart {
			return true // a base string (or "" in split tables): shared
		}
		rel := *p - strStart
		if int(rel) >= len(strMap) {
			return false
		}
		*p = strMap[rel]
		return true
	}
	for i := range frag.Len() {
		w := t.typeAt(oldTypes + i)
		k := infoKind(w[1])
		if typeWords(k, infoVlen(w[1])) != len(w) {
			return fail(fmt.Errorf("btf: fragment type %d has unknown kind %d", fragFirst+uint32(i), k))
		}
		l := idFields(k)
		bad := -1
		for _, f := range l.fixed[:l.nfixed] {
			if !mapID(&w[f]) {
				bad = int(f)
			}
		}
		if l.stride != 0 {
			for j := headerWords + int(l.elem); j < len(w); j += int(l.stride) {
				if !mapID(&w[j]) {
					bad = j
				}
			}
		}
		if bad >= 0 {
			return fail(fmt.Errorf("btf: fragment type %d refers to type %d: past its last type %d and its %d external ids",
				fragFirst+uint32(i), w[bad], fragNext-1, len(external)))
		}
		if !remapStrings {
			continue
		}
		l = strFields(k)
		for _, f := range l.fixed[:l.nfixed] {
			if !mapStr(&w[f]) {
				bad = int(f)
			}
		}
		if l.stride != 0 {
			for j := headerWords + int(l.elem); j < len(w); j += int(l.stride) {
				if !mapStr(&w[j]) {
					bad = j
				}
			}
		}
		if bad >= 0 {
			return fail(fmt.Errorf("btf: fragment type %d has string offset %d past its string table", fragFirst+uint32(i), w[bad]))
		}
	}
	return nil
}

// grow makes room for n more elements, doubling the capacity when it must
// grow (append grows big slices by only a quarter, which costs many copies
// of the kernel's tens of megabytes of types).
func grow[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return append(make([]T, 0, max(2*cap(s), len(s)+n, 256)), s...)
}
