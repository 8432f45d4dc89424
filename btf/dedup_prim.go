package btf

// primTypes deduplicates the types that refer to no other type: INT, FLOAT,
// FWD, ENUM and ENUM64 (btf_dedup_prim_types).
func (d *deduper) primTypes() error {
	for id := d.start; id < d.n; id++ {
		d.primType(id)
	}
	return nil
}

// primType is btf_dedup_prim_type.
func (d *deduper) primType(id uint32) {
	w := d.typ(id)
	newID := id
	var h uint64
	switch infoKind(w[1]) {
	case KindInt:
		h = hashIntTag(w)
		for _, c := range d.table.candidates(h) {
			if equalWords(w, d.typ(c)) {
				newID = c
				break
			}
		}
	case KindEnum, KindEnum64:
		h = hashEnum(w)
		for _, c := range d.table.candidates(h) {
			cw := d.typ(c)
			if equalCommon(w, cw) && equalWords(w, cw) {
				newID = c
				break
			}
			if compatEnum(w, cw) {
				if isEnumFwd(w) {
					newID = c // resolve a forward declaration to the full enum
					break
				}
				_ = c // resolve the canonical forward declaration to this enum
			}
		}
	case KindFwd, KindFloat:
		h = hashCommon(w)
		for _, c := range d.table.candidates(h) {
			if equalCommon(w, d.typ(c)) {
				newID = c
				break
			}
		}
	default:
		return
	}
	d.canon[id] = newID
	if newID == id {
		d.table.add(h, id)
	}
}

// resolveFwds maps each FWD still canonical to the struct or union of its
// name, when exactly one canonical struct or union has that name and it is
// of the FWD's kind (btf_dedup_resolve_fwds).
func (d *deduper) resolveFwds() error {
	names := make(map[uint32]uint32) // name -> the canonical struct/union, 0 if several
	for id := uint32(1); id < d.n; id++ {
		w := d.typ(id)
		if k := infoKind(w[1]); (k != KindStruct && k != KindUnion) || d.canon[id] != id {
			continue
		}
		if _, dup := names[w[0]]; dup {
			names[w[0]] = 0
		} else {
			names[w[0]] = id
		}
	}
	for id := d.start; id < d.n; id++ {
		w := d.typ(id)
		if infoKind(w[1]) != KindFwd || d.canon[id] != id {
			continue
		}
		c, ok := names[w[0]]
		if !ok || c == 0 {
			continue
		}
		union := w[1]&infoKindFlag != 0
		if ck := d.kind(c); (ck == KindStruct && union) || (ck == KindUnion && !union) {
			continue
		}
		d.canon[id] = c
	}
	return nil
}
