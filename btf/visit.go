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
	next := uint32(t.NextID())
	strSize := uint64(t.Strings.Size())
	first := t.FirstID()
	for i := range t.offs {
		w := t.typeAt(i)
		k := infoKind(w[1])
		var bad *uint32
		forEachField(w, idFields(k), func(p *uint32) bool {
			if *p >= next {
				bad = p
			}
			return bad == nil
		})
		if bad != nil {
			return fmt.Errorf("btf: type %d (%v) refers to type %d, past the last type %d", first+TypeID(i), k, *bad, next-1)
		}
		forEachField(w, strFields(k), func(p *uint32) bool {
			if uint64(*p) >= strSize {
				bad = p
			}
			return bad == nil
		})
		if bad != nil {
			return fmt.Errorf("btf: type %d (%v) has string offset %d past the string table (%d bytes)", first+TypeID(i), k, *bad, strSize)
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
	var remap strRemap
	if frag.Strings != t.Strings {
		remap = newStrRemap(frag.Strings, t.Strings)
		if err := t.Strings.Err(); err != nil {
			return err
		}
	}

	fragFirst := uint32(frag.FirstID())
	fragNext := fragFirst + uint32(frag.Len())
	shift := uint32(t.NextID()) - fragFirst
	ownStrStart := frag.Strings.start
	oldWords, oldTypes := len(t.words), len(t.offs)
	t.words = append(t.words, frag.words...)
	for _, o := range frag.offs {
		t.offs = append(t.offs, o+uint32(oldWords))
	}
	fail := func(err error) error {
		t.words, t.offs = t.words[:oldWords], t.offs[:oldTypes]
		return err
	}
	for i := range frag.Len() {
		w := t.typeAt(oldTypes + i)
		k := infoKind(w[1])
		if typeWords(k, infoVlen(w[1])) != len(w) {
			return fail(fmt.Errorf("btf: fragment type %d has unknown kind %d", fragFirst+uint32(i), k))
		}
		var err error
		forEachField(w, idFields(k), func(p *uint32) bool {
			r := *p
			switch {
			case r == 0 || r < fragFirst:
			case r < fragNext:
				*p = r + shift
			case int(r-fragNext) < len(external):
				*p = uint32(external[r-fragNext])
			default:
				err = fmt.Errorf("btf: fragment type %d refers to type %d: past its last type %d and its %d external ids",
					fragFirst+uint32(i), r, fragNext-1, len(external))
				return false
			}
			return true
		})
		if err == nil && remap.olds != nil {
			forEachField(w, strFields(k), func(p *uint32) bool {
				if *p < ownStrStart {
					return true // "" or a base string: shared
				}
				n, ok := remap.lookup(*p)
				if !ok {
					err = fmt.Errorf("btf: fragment type %d has string offset %d past its string table", fragFirst+uint32(i), *p)
					return false
				}
				*p = n
				return true
			})
		}
		if err != nil {
			return fail(err)
		}
	}
	return nil
}

// strRemap maps the own string offsets of one table to offsets in another.
type strRemap struct {
	olds, news []uint32 // start offset of each own string, ascending; its new offset
	end        uint32   // end of the old own section
}

// newStrRemap adds every own string of from to to, in from's order.
func newStrRemap(from, to *Strings) strRemap {
	r := strRemap{olds: make([]uint32, 0, 64), news: make([]uint32, 0, 64), end: uint32(from.Size())}
	from.forEach(func(off uint32, s string) {
		r.olds = append(r.olds, off)
		r.news = append(r.news, to.Add(s))
	})
	return r
}

// lookup maps offset off (possibly pointing into the middle of a string).
func (r *strRemap) lookup(off uint32) (uint32, bool) {
	if off >= r.end || len(r.olds) == 0 {
		return 0, false
	}
	// Find the last string starting at or before off.
	lo, hi := 0, len(r.olds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.olds[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0, false
	}
	return r.news[lo-1] + (off - r.olds[lo-1]), true
}
