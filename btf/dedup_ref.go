package btf

import "fmt"

// refTypes deduplicates the types that only refer to others: PTR, CONST,
// VOLATILE, RESTRICT, TYPE_TAG, FUNC, DECL_TAG, ARRAY and FUNC_PROTO
// (btf_dedup_ref_types). A type's references are first resolved to canonical
// types (recursively; chains end at types deduplicated by earlier passes),
// then the type with resolved references is compared whole.
//
// libbpf writes the resolved references into the type; here they go to a
// copy kept in refWords (at offset hypot[id]) for the types that become
// canonical, the only ones later types are compared with.
//
// This runs it for ids lo..hi-1; the caller clears hypot before the first
// range.
func (d *deduper) refTypes(lo, hi uint32) error {
	for id := lo; id < hi; id++ {
		if _, err := d.refType(id, 0); err != nil {
			return err
		}
	}
	return nil
}

// refType is btf_dedup_ref_type: it returns the canonical id of id.
func (d *deduper) refType(id uint32, depth int) (uint32, error) {
	switch c := d.canonOf(id); {
	case c == inProgressID:
		return 0, fmt.Errorf("type %d: reference loop", id)
	case c <= maxMappedID:
		return d.resolve(id), nil
	}
	if depth > maxDepth {
		return 0, fmt.Errorf("type %d: reference chain longer than %d", id, maxDepth)
	}
	d.setCanon(id, inProgressID)
	w := d.typ(id)
	k := infoKind(w[1])
	// Resolve the references, in libbpf's order (it matters: it decides
	// which types enter the table first).
	var err error
	resolveAt := func(i int) {
		if err == nil {
			_, err = d.refType(w[i], depth+1)
		}
	}
	switch k {
	case KindConst, KindVolatile, KindRestrict, KindPtr, KindFunc, KindTypeTag, KindDeclTag:
		resolveAt(2)
	case KindArray:
		resolveAt(3)
		resolveAt(4)
	case KindFuncProto:
		for i := 2; i < len(w); i += 2 { // the return type, then each parameter's
			resolveAt(i)
		}
	default:
		return 0, fmt.Errorf("type %d: unexpected %v among reference types", id, k)
	}
	if err != nil {
		return 0, err
	}
	// Each reference now resolves to what refType returned for it.
	rw := append(d.scratch[:0], w...)
	d.scratch = rw
	l := idFields(k)
	for _, f := range l.fixed[:l.nfixed] {
		rw[f] = d.resolve(rw[f])
	}
	if l.stride != 0 {
		for i := headerWords + int(l.elem); i < len(rw); i += int(l.stride) {
			rw[i] = d.resolve(rw[i])
		}
	}

	var h uint64
	equal := equalWords
	switch k {
	case KindDeclTag:
		h = hashIntTag(rw)
	case KindArray:
		h = hashArray(rw)
	case KindFuncProto:
		h = hashFnproto(rw)
	default:
		h, equal = hashCommon(rw), equalCommon
	}
	newID := id
	for _, c := range d.table.candidates(h) {
		if equal(rw, d.refTyp(c)) {
			newID = c
			break
		}
	}
	d.setCanon(id, newID)
	if newID == id {
		d.setHypot(id, uint32(len(d.refWords)))
		d.refWords = append(d.refWords, rw...)
		d.table.add(h, id)
	}
	return newID, nil
}

// refTyp returns the words of candidate c as libbpf sees them during this
// pass: with resolved references for own reference types.
func (d *deduper) refTyp(c uint32) []uint32 {
	if r := d.hypotOf(c); r != unprocessedID {
		w := d.typ(c)
		return d.refWords[r : int(r)+len(w)]
	}
	return d.typ(c)
}
