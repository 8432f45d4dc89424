package btf

import "fmt"

// DistillBase turns split BTF into a pair that no longer needs the exact
// base it was encoded against, as libbpf's btf__distill_base does (the
// .BTF.base section written for kernel modules with the distilled_base
// feature): the new base holds only what split refers to — named INT,
// FLOAT and FWD as they are, named STRUCT/UNION as member-less types of
// the same size, named ENUM/ENUM64 as value-less ENUMs of the same size —
// and the new split BTF holds its own types followed by the other base
// types it needs (pointers, arrays, typedefs, prototypes, anonymous
// composites), with ids renumbered.
func DistillBase(split *Types) (base, newSplit *Types, err error) {
	old := split.Base
	if old == nil {
		return nil, nil, fmt.Errorf("btf: distilling a base needs split BTF")
	}
	if err := split.Err(); err != nil {
		return nil, nil, err
	}
	n := uint32(split.NextID())
	splitStart := uint32(split.FirstID())
	idMap := make([]uint32, n)

	var mark func(id TypeID) error
	mark = func(id TypeID) error {
		w := split.raw(id)
		var bad error
		forEachField(w, idFields(infoKind(w[1])), func(p *uint32) bool {
			ref := *p
			if ref == 0 || ref >= splitStart || idMap[ref] > 0 {
				return true
			}
			bw := old.raw(TypeID(ref))
			if bw == nil {
				bad = fmt.Errorf("btf: type %d refers to unknown base type %d", id, ref)
				return false
			}
			k := infoKind(bw[1])
			switch k {
			case KindInt, KindFloat, KindFwd, KindArray, KindStruct, KindUnion, KindTypedef,
				KindEnum, KindEnum64, KindPtr, KindConst, KindRestrict, KindVolatile,
				KindFuncProto, KindTypeTag:
				idMap[ref] = ref
			default:
				bad = fmt.Errorf("btf: type %d refers to base type %d of kind %v, which a distilled base cannot hold", id, ref, k)
				return false
			}
			// Named structs and unions keep no members in the distilled
			// base, so what their members refer to is not needed.
			if (k == KindStruct || k == KindUnion) && bw[0] != 0 {
				return true
			}
			if err := mark(TypeID(ref)); err != nil {
				bad = err
				return false
			}
			return true
		})
		return bad
	}
	for id := TypeID(splitStart); id < TypeID(n); id++ {
		if err := mark(id); err != nil {
			return nil, nil, err
		}
	}

	base = NewTypes(NewStrings())
	name := func(dst *Types, off uint32) uint32 { return dst.Strings.Add(split.Strings.String(off)) }
	// Base part: named INT, FLOAT, FWD as they are; named composites and
	// enums without members or values.
	for i := uint32(1); i < splitStart; i++ {
		if idMap[i] == 0 {
			continue
		}
		w := old.raw(TypeID(i))
		k := infoKind(w[1])
		var got TypeID
		switch {
		case k == KindInt || k == KindFloat || k == KindFwd:
			got = copyWords(base, w, func(p *uint32) { *p = name(base, *p) }, k)
		case (k == KindStruct || k == KindUnion) && w[0] != 0:
			got = base.AddStruct(k == KindUnion, name(base, w[0]), w[2], nil)
		case (k == KindEnum || k == KindEnum64) && w[0] != 0:
			got = base.AddEnum(name(base, w[0]), w[2], false, nil)
		default:
			continue
		}
		idMap[i] = uint32(got)
	}
	newSplit = NewSplitTypes(base)
	for id := TypeID(splitStart); id < TypeID(n); id++ {
		w := split.raw(id)
		copyWords(newSplit, w, func(p *uint32) { *p = name(newSplit, *p) }, infoKind(w[1]))
	}
	for i := uint32(1); i < splitStart; i++ {
		if idMap[i] == 0 {
			continue
		}
		w := old.raw(TypeID(i))
		k := infoKind(w[1])
		switch k {
		case KindInt, KindFloat, KindFwd:
			continue
		case KindStruct, KindUnion, KindEnum, KindEnum64:
			if w[0] != 0 {
				continue
			}
		}
		idMap[i] = uint32(copyWords(newSplit, w, func(p *uint32) { *p = name(newSplit, *p) }, k))
	}
	diff := splitStart - uint32(base.NextID())
	for i := range newSplit.offs {
		w := newSplit.raw(newSplit.FirstID() + TypeID(i))
		forEachField(w, idFields(infoKind(w[1])), func(p *uint32) bool {
			switch {
			case *p < n && idMap[*p] != 0:
				*p = idMap[*p]
			case *p >= splitStart:
				*p -= diff
			}
			return true
		})
	}
	if err := base.Err(); err != nil {
		return nil, nil, err
	}
	if err := newSplit.Err(); err != nil {
		return nil, nil, err
	}
	return base, newSplit, nil
}

// copyWords appends a copy of type w to dst, passing each string field to
// rename; type ids are copied unchanged.
func copyWords(dst *Types, w []uint32, rename func(*uint32), k Kind) TypeID {
	id, nw := dst.begin(len(w), w[0], w[1], w[2])
	if nw == nil {
		return 0
	}
	copy(nw, w)
	forEachField(nw, strFields(k), func(p *uint32) bool {
		rename(p)
		return true
	})
	return id
}
