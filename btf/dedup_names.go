package btf

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// structNames is the base's part of libbpf's names map for
// btf_dedup_resolve_fwds: each name of a base struct or union (anonymous
// ones under name 0) with that type's id, or 0 when several share the
// name. A prepared base stores it in its snapshot, so that resolving a
// module's few FWDs looks their names up instead of reading every type of
// the base (its pages included).
//
// The base's types are their own canonical types in a split dedup (libbpf
// maps no base type to another but enum declarations), so the base's part
// of the map does not depend on the split types.
type structNames struct {
	names []uint32 // ascending
	ids   []uint32 // per name: the struct or union, 0 if several
}

// baseStructNames returns base's part of the names map (see structNames).
func baseStructNames(base *Types) structNames {
	type named struct{ name, id uint32 }
	var all []named
	for i := range len(base.offs) {
		w := base.typeAt(i)
		if k := infoKind(w[1]); k == KindStruct || k == KindUnion {
			all = append(all, named{w[0], uint32(base.FirstID()) + uint32(i)})
		}
	}
	slices.SortStableFunc(all, func(a, b named) int { return cmp.Compare(a.name, b.name) })
	var x structNames
	for i, n := range all {
		if i > 0 && n.name == all[i-1].name {
			x.ids[len(x.ids)-1] = 0
			continue
		}
		x.names = append(x.names, n.name)
		x.ids = append(x.ids, n.id)
	}
	return x
}

// lookup returns what the names map holds for name from the base: the one
// struct or union of that name, 0 if several, unprocessedID if none. ok is
// false if the index is not sound for name (a damaged or crafted prepared
// base, whose index is not checked when loaded): the id it gives is not a
// canonical base struct or union of that name.
func (x *structNames) lookup(d *deduper, name uint32) (id uint32, ok bool) {
	i, found := slices.BinarySearch(x.names, name)
	if !found {
		return unprocessedID, true
	}
	id = x.ids[i] // as many as names (readStructNames)
	if id == 0 {
		return 0, true
	}
	if id >= d.start || d.canonOf(id) != id {
		return 0, false
	}
	if k := d.kind(id); (k != KindStruct && k != KindUnion) || d.typ(id)[0] != name {
		return 0, false
	}
	return id, true
}

// writeStructNames encodes x to p: the count, the names and the ids (4
// bytes each).
func writeStructNames(p *pieceWriter, x *structNames) {
	le := binary.LittleEndian
	p.b = le.AppendUint64(p.b, uint64(len(x.names)))
	for _, n := range x.names {
		p.b = le.AppendUint32(p.b, n)
		p.spill()
	}
	for _, id := range x.ids {
		p.b = le.AppendUint32(p.b, id)
		p.spill()
	}
}

// readStructNames decodes what writeStructNames wrote, in place. Only the
// sizes are checked: lookup checks what it reads.
func readStructNames(r *snapshotReader) structNames {
	n := r.count(8)
	return structNames{names: viewAs[uint32](r, n), ids: viewAs[uint32](r, n)}
}
