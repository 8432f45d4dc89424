package btf

import "fmt"

// structTypes deduplicates STRUCT, UNION and TYPEDEF types by comparing the
// type graphs they span with those of canonical candidates of equal shallow
// signature (btf_dedup_struct_types), for ids lo..hi-1.
func (d *deduper) structTypes(lo, hi uint32) error {
	for id := lo; id < hi; id++ {
		if err := d.structType(id); err != nil {
			return err
		}
	}
	return nil
}

// structType is btf_dedup_struct_type.
func (d *deduper) structType(id uint32) error {
	if d.isMapped(id) { // deduplicated already, or being deduplicated
		return nil
	}
	w := d.typ(id)
	k := infoKind(w[1])
	var h uint64
	switch k {
	case KindStruct, KindUnion:
		h = hashStruct(w)
	case KindTypedef:
		h = hashTypedef(w)
	default:
		return nil
	}
	newID := id
	if d.piped {
		var err error
		if newID, err = d.structCandAnyOrder(id, k, w, h); err != nil {
			return err
		}
	} else {
		for _, c := range d.table.candidates(h) {
			eq, err := d.tryCand(id, c, k, w)
			if err != nil {
				return err
			}
			if !eq {
				continue
			}
			d.mergeHypot()
			if d.adjustCanon { // would modify the base: not equivalent after all
				continue
			}
			newID = c
			break
		}
	}
	d.setCanon(id, newID)
	if newID == id {
		d.addEntry(h, id)
	}
	return nil
}

// tryCand reports whether candidate c has id's shallow signature and an
// equivalent type graph, leaving the correspondence in the hypothetical map.
func (d *deduper) tryCand(id, c uint32, k Kind, w []uint32) (bool, error) {
	if !d.shallowCand(k, w, d.typ(c)) {
		return false, nil
	}
	d.clearHypot()
	return d.isEquiv(id, c, 0)
}

// shallowCand reports whether candidate words cw have the shallow signature
// of w, of kind k. A FWD sharing the hash would be "equivalent" and could
// form a FWD <-> STRUCT loop; only same-kind candidates qualify.
func (d *deduper) shallowCand(k Kind, w, cw []uint32) bool {
	if k == KindTypedef {
		return equalTypedef(w, cw)
	}
	return shallowEqualStruct(w, cw)
}

// structCandAnyOrder is structType's candidate loop for a pipelined dedup,
// whose table lists candidates in another order than libbpf's: it tries
// all of them, and the result is libbpf's when at most one is equivalent
// (see pipelined.go); with more, the dedup is unsure.
func (d *deduper) structCandAnyOrder(id uint32, k Kind, w []uint32, h uint64) (uint32, error) {
	found, adjust := false, false
	var pick uint32
	var saved []uint32 // the winner's hypothetical map, as pairs
	for _, c := range d.table.candidates(h) {
		eq, err := d.tryCand(id, c, k, w)
		if err != nil {
			return 0, err
		}
		if !eq {
			continue
		}
		if found {
			d.beUnsure("a struct with two equivalent candidates")
			continue
		}
		found, pick, adjust = true, c, d.adjustCanon
		saved = d.scratchPairs[:0]
		for _, from := range d.hypotList {
			saved = append(saved, from, d.hypotOf(from))
		}
		d.scratchPairs = saved
	}
	if !found {
		d.clearHypot()
		return id, nil
	}
	d.clearHypot()
	for i := 0; i < len(saved); i += 2 {
		d.hypotAdd(saved[i], saved[i+1])
	}
	d.adjustCanon = adjust
	d.mergeHypot()
	if adjust { // would modify the base: not equivalent after all
		return id, nil
	}
	return pick, nil
}

// clearHypot resets the hypothetical map (btf_dedup_clear_hypot_map).
func (d *deduper) clearHypot() {
	for _, id := range d.hypotList {
		d.setHypot(id, unprocessedID)
	}
	d.hypotList = d.hypotList[:0]
	d.adjustCanon = false
}

func (d *deduper) hypotAdd(from, to uint32) {
	d.hypotList = append(d.hypotList, from)
	d.setHypot(from, to)
}

// isEquiv reports whether the type graph at candidate type cand is equivalent
// to the one at canonical type canon, recording the correspondence in the
// hypothetical map (btf_dedup_is_equiv, whose comment explains the
// algorithm; FWDs are resolved on the canonical side only).
func (d *deduper) isEquiv(cand, canon uint32, depth int) (bool, error) {
	switch d.equiv(cand, canon, depth) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, d.err
}

// Results of equiv, as libbpf's btf_dedup_is_equiv: equivalent, not, or an
// error (recorded in d.err).
const (
	equivYes   = 1
	equivNo    = 0
	equivError = -1
)

// equiv is btf_dedup_is_equiv. For speed, where it descends into the types
// a type refers to, it tests the first condition, equal resolution, before
// recursing.
func (d *deduper) equiv(cand, canon uint32, depth int) int8 {
	// Types resolving to the same canonical type are equivalent.
	if d.resolve(cand) == d.resolve(canon) {
		return equivYes
	}
	return d.equivUnresolved(cand, canon, depth)
}

// equivUnresolved is equiv for types that resolve to different types.
func (d *deduper) equivUnresolved(cand, canon uint32, depth int) int8 {
	if depth > maxDepth {
		d.fail(fmt.Errorf("type %d: type graph deeper than %d", cand, maxDepth))
		return equivError
	}
	canon = d.resolveFwd(canon)

	if hyp := d.hypotOf(canon); hyp <= maxMappedID {
		if hyp == cand {
			return equivYes // a cycle, consistent so far
		}
		// Compilers may emit identical types twice in one unit (arrays,
		// sometimes structs or pointers); accept a structural match.
		if d.identical(hyp, cand, identicalDepth) {
			return equivYes
		}
		return equivNo
	}
	d.hypotAdd(canon, cand)

	cw, kw := d.typ(cand), d.typ(canon)
	ck, kk := infoKind(cw[1]), infoKind(kw[1])
	if cw[0] != kw[0] {
		return equivNo
	}

	// FWD <-> STRUCT/UNION equivalence.
	if (ck == KindFwd || kk == KindFwd) && ck != kk {
		var real, fwd Kind
		if ck == KindFwd {
			real, fwd = kk, fwdKind(cw)
		} else {
			real, fwd = ck, fwdKind(kw)
			// Resolving a base FWD to a STRUCT/UNION would modify the base.
			if fwd == real && canon < d.start {
				d.adjustCanon = true
			}
		}
		return b2e(fwd == real)
	}
	if ck != kk {
		return equivNo
	}

	switch ck {
	case KindInt:
		return b2e(equalWords(cw, kw))
	case KindEnum, KindEnum64:
		return b2e(compatEnum(cw, kw))
	case KindFwd, KindFloat:
		return b2e(equalCommon(cw, kw))
	case KindConst, KindVolatile, KindRestrict, KindPtr, KindTypedef, KindFunc, KindTypeTag:
		if cw[1] != kw[1] {
			return equivNo
		}
		if d.resolve(cw[2]) == d.resolve(kw[2]) {
			return equivYes
		}
		return d.equivUnresolved(cw[2], kw[2], depth+1)
	case KindArray:
		if !compatArray(cw, kw) {
			return equivNo
		}
		if d.resolve(cw[4]) != d.resolve(kw[4]) {
			if r := d.equivUnresolved(cw[4], kw[4], depth+1); r != equivYes {
				return r
			}
		}
		if d.resolve(cw[3]) == d.resolve(kw[3]) {
			return equivYes
		}
		return d.equivUnresolved(cw[3], kw[3], depth+1)
	case KindStruct, KindUnion:
		if !shallowEqualStruct(cw, kw) {
			return equivNo
		}
		for i := headerWords + 1; i < len(cw); i += 3 {
			if d.resolve(cw[i]) == d.resolve(kw[i]) {
				continue
			}
			if r := d.equivUnresolved(cw[i], kw[i], depth+1); r != equivYes {
				return r
			}
		}
		return equivYes
	case KindFuncProto:
		if !compatFnproto(cw, kw) {
			return equivNo
		}
		for i := 2; i < len(cw); i += 2 { // the return type, then each parameter's
			if d.resolve(cw[i]) == d.resolve(kw[i]) {
				continue
			}
			if r := d.equivUnresolved(cw[i], kw[i], depth+1); r != equivYes {
				return r
			}
		}
		return equivYes
	}
	d.fail(fmt.Errorf("type %d: %v cannot take part in a type graph", cand, ck))
	return equivError
}

func b2e(b bool) int8 {
	if b {
		return equivYes
	}
	return equivNo
}

// fwdKind is the kind a FWD declares.
func fwdKind(w []uint32) Kind {
	if w[1]&infoKindFlag != 0 {
		return KindUnion
	}
	return KindStruct
}

// identical compares two type graphs structurally, to a depth limit
// (btf_dedup_identical_types). It mirrors libbpf exactly, including that its
// ARRAY case compares the first array's element and index types with
// themselves, so that arrays of equal name, size and length always match.
// (It differs only where libbpf would not terminate, see below.)
func (d *deduper) identical(id1, id2 uint32, depth int) bool {
	return identicalTypes(d, id1, id2, depth)
}

// identicalDepth is the depth libbpf's struct pass compares copies to.
const identicalDepth = 16

// typeSource gives the words of type ids 0..limit()-1 (void's are a
// zero header).
type typeSource interface {
	typ(id uint32) []uint32
	limit() uint32
}

func (d *deduper) limit() uint32 { return d.n }

// identicalTypes is identical on the types of src.
func identicalTypes[S typeSource](src S, id1, id2 uint32, depth int) bool {
	// libbpf follows reference kinds without counting depth, so a cycle of
	// them (a typedef of itself: invalid C) never ends there; here a chain
	// longer than the number of types is "not identical".
	for steps := uint32(0); ; steps++ {
		if depth <= 0 || steps > src.limit() {
			return false
		}
		w1, w2 := src.typ(id1), src.typ(id2)
		k1, k2 := infoKind(w1[1]), infoKind(w2[1])
		if k1 != k2 {
			return false
		}
		switch k1 {
		case KindVoid:
			return true
		case KindInt:
			return equalWords(w1, w2)
		case KindEnum, KindEnum64:
			return compatEnum(w1, w2)
		case KindFwd, KindFloat:
			return equalCommon(w1, w2)
		case KindConst, KindVolatile, KindRestrict, KindPtr, KindTypedef, KindFunc, KindTypeTag:
			if w1[1] != w2[1] || w1[0] != w2[0] {
				return false
			}
			id1, id2 = w1[2], w2[2] // tail call, same depth as libbpf's goto
		case KindArray:
			return compatArray(w1, w2)
		case KindStruct, KindUnion:
			if !shallowEqualStruct(w1, w2) {
				return false
			}
			for i := headerWords + 1; i < len(w1); i += 3 {
				if w1[i] != w2[i] && !identicalTypes(src, w1[i], w2[i], depth-1) {
					return false
				}
			}
			return true
		case KindFuncProto:
			if !compatFnproto(w1, w2) {
				return false
			}
			if w1[2] != w2[2] && !identicalTypes(src, w1[2], w2[2], depth-1) {
				return false
			}
			for i := headerWords + 1; i < len(w1); i += 2 {
				if w1[i] != w2[i] && !identicalTypes(src, w1[i], w2[i], depth-1) {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
}

// mergeHypot turns a successful hypothetical map into canonical mappings:
// FWDs to the structs/unions they declare, and (as a shortcut) candidate
// structs/unions to canonical ones (btf_dedup_merge_hypot_map).
func (d *deduper) mergeHypot() {
	for _, canonID := range d.hypotList {
		targ := d.hypotOf(canonID)
		t := d.resolve(targ)
		c := d.resolve(canonID)
		tk, ck := d.kind(t), d.kind(c)
		// A canonical FWD (possibly the base's) points to the struct.
		if tk != KindFwd && ck == KindFwd {
			d.setCanon(c, t)
		}
		if d.adjustCanon {
			continue
		}
		if tk == KindFwd && ck != KindFwd {
			d.setCanon(t, c)
		}
		if (tk == KindStruct || tk == KindUnion) && ck != KindFwd && d.isMapped(c) && !d.isMapped(t) {
			d.setCanon(t, c)
		}
	}
}
