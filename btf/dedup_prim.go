package btf

// primTypes deduplicates the types that refer to no other type: INT, FLOAT,
// FWD, ENUM and ENUM64 (btf_dedup_prim_types), for ids lo..hi-1.
func (d *deduper) primTypes(lo, hi uint32) {
	for id := lo; id < hi; id++ {
		d.primType(id)
	}
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
		if isEnumFwd(w) {
			for _, c := range d.table.candidates(h) {
				cw := d.typ(c)
				if equalWords(w, cw) || compatEnum(w, cw) {
					newID = c // the same declaration, or the full enum it declares
					break
				}
			}
		} else {
			newID = d.fullEnum(id, w, h)
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
	d.setCanon(id, newID)
	if newID == id {
		d.addCand(h, id, w)
	}
}

// fullEnum is btf_dedup_prim_type's loop for an ENUM or ENUM64 with values,
// computed without walking the candidate list: anonymous enums all share
// the list of name 0, which grows to hundreds in the kernel. libbpf walks it
// and stops at the first candidate equal to the enum; on the way, every
// forward declaration (enum without values) of the same name is resolved to
// the enum. Here the equal candidate comes from an index by content and the
// declarations from a per-name list; candTable.before gives libbpf's order.
func (d *deduper) fullEnum(id uint32, w []uint32, h uint64) uint32 {
	eq := int32(-1)
	base, own := d.enumByContent.get(contentHash(w))
	for _, es := range [2][]int32{base, own} {
		for _, e := range es {
			if equalWords(w, d.typ(d.table.entry(e).id)) && (eq < 0 || d.table.before(e, eq)) {
				eq = e
			}
		}
	}
	base, own = d.enumDecls.get(h)
	for _, fs := range [2][]int32{base, own} {
		for _, f := range fs {
			if eq >= 0 && !d.table.before(f, eq) {
				continue
			}
			if c := d.table.entry(f).id; compatEnum(w, d.typ(c)) {
				if d.piped && d.canonOf(c) != c {
					d.beUnsure("an enum declaration taken over by a full enum is taken over again")
				}
				d.setCanon(c, id) // resolve the canonical declaration to this enum
			}
		}
	}
	if eq < 0 {
		return id
	}
	return d.table.entry(eq).id
}

// addCand adds canonical type id with words w under hash h to the table and,
// for enums, to the indexes fullEnum uses.
func (d *deduper) addCand(h uint64, id uint32, w []uint32) {
	e := d.addEntry(h, id)
	if isAnyEnum(w) {
		if isEnumFwd(w) {
			d.enumDecls.add(h, e)
		} else {
			d.enumByContent.add(contentHash(w), e)
		}
	}
}

// contentHash hashes all words of a type (FNV-1a over the words).
func contentHash(w []uint32) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range w {
		h ^= uint64(x)
		h *= 1099511628211
	}
	return h
}

// resolveFwds maps each FWD still canonical to the struct or union of its
// name, when exactly one canonical struct or union has that name and it is
// of the FWD's kind (btf_dedup_resolve_fwds).
func (d *deduper) resolveFwds() error {
	// Only the names of FWDs still canonical matter: a module has a few,
	// its base (split BTF) thousands of structs, so the names are
	// collected first and the structs counted for those names alone.
	names := make(map[uint32]uint32) // name -> the canonical struct/union, 0 if several
	for id := d.start; id < d.n; id++ {
		if d.kind(id) == KindFwd && d.canonOf(id) == id {
			names[d.typ(id)[0]] = unprocessedID
		}
	}
	if len(names) == 0 {
		return nil
	}
	// The base's structs and unions are counted from the prepared base's
	// index when it is sound for every name wanted, else read.
	from := uint32(1)
	if d.baseNamesFor(names) {
		from = d.start
	}
	for id := from; id < d.n; id++ {
		if k := d.kind(id); (k != KindStruct && k != KindUnion) || d.canonOf(id) != id {
			continue
		}
		name := d.typ(id)[0]
		switch c, want := names[name]; {
		case !want:
		case c == unprocessedID:
			names[name] = id
		default:
			names[name] = 0
		}
	}
	for id := d.start; id < d.n; id++ {
		if d.kind(id) != KindFwd || d.canonOf(id) != id {
			continue
		}
		w := d.typ(id)
		c := names[w[0]]
		if c == 0 || c == unprocessedID {
			continue
		}
		union := w[1]&infoKindFlag != 0
		if ck := d.kind(c); (ck == KindStruct && union) || (ck == KindUnion && !union) {
			continue
		}
		d.setCanon(id, c)
	}
	return nil
}

// baseNamesFor sets the names map's entries (names, each unprocessedID)
// to the base's part of them, from d.baseNames, and reports whether it
// did: not if there is no index, or it is not sound for one of the names
// (names is then left as it was).
func (d *deduper) baseNamesFor(names map[uint32]uint32) bool {
	if d.baseNames == nil {
		return false
	}
	for name := range names {
		id, ok := d.baseNames.lookup(d, name)
		if !ok {
			for name := range names {
				names[name] = unprocessedID
			}
			return false
		}
		names[name] = id
	}
	return true
}
