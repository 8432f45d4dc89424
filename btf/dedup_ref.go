package btf

import "fmt"

// refTypes deduplicates the types that only refer to others: PTR, CONST,
// VOLATILE, RESTRICT, TYPE_TAG, FUNC, DECL_TAG, ARRAY and FUNC_PROTO
// (btf_dedup_ref_types). Their references are first resolved to canonical
// types (recursively; chains end at types deduplicated by earlier passes),
// written into the type, and then the type is compared whole.
func (d *deduper) refTypes() error {
	for id := d.start; id < d.n; id++ {
		if _, err := d.refType(id, 0); err != nil {
			return err
		}
	}
	return nil
}

// refType is btf_dedup_ref_type: it returns the canonical id of id.
func (d *deduper) refType(id uint32, depth int) (uint32, error) {
	switch c := d.canon[id]; {
	case c == inProgressID:
		return 0, fmt.Errorf("type %d: reference loop", id)
	case c <= maxMappedID:
		return d.resolve(id), nil
	}
	if depth > maxDepth {
		return 0, fmt.Errorf("type %d: reference chain longer than %d", id, maxDepth)
	}
	d.canon[id] = inProgressID
	w := d.typ(id)
	// resolveWord replaces the type id in *p by its canonical id.
	resolveWord := func(p *uint32) error {
		r, err := d.refType(*p, depth+1)
		*p = r
		return err
	}
	var h uint64
	var equal func(a, b []uint32) bool
	switch k := infoKind(w[1]); k {
	case KindConst, KindVolatile, KindRestrict, KindPtr, KindFunc, KindTypeTag:
		if err := resolveWord(&w[2]); err != nil {
			return 0, err
		}
		h, equal = hashCommon(w), equalCommon
	case KindDeclTag:
		if err := resolveWord(&w[2]); err != nil {
			return 0, err
		}
		h, equal = hashIntTag(w), equalWords
	case KindArray:
		if err := resolveWord(&w[3]); err != nil {
			return 0, err
		}
		if err := resolveWord(&w[4]); err != nil {
			return 0, err
		}
		h, equal = hashArray(w), equalWords
	case KindFuncProto:
		if err := resolveWord(&w[2]); err != nil {
			return 0, err
		}
		for i := headerWords + 1; i < len(w); i += 2 {
			if err := resolveWord(&w[i]); err != nil {
				return 0, err
			}
		}
		h, equal = hashFnproto(w), equalWords
	default:
		return 0, fmt.Errorf("type %d: unexpected %v among reference types", id, k)
	}
	newID := id
	for _, c := range d.table.candidates(h) {
		if equal(w, d.typ(c)) {
			newID = c
			break
		}
	}
	d.canon[id] = newID
	if newID == id {
		d.table.add(h, id)
	}
	return newID, nil
}
