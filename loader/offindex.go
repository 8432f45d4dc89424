package loader

import (
	"cmp"
	"slices"
)

// offsetIndex maps the offsets of one unit's recorded DIEs (types,
// subprograms, parameters, variables) to int32 values: a type's raw index
// + 1, or a slot (funcwalk.go). The walk records entries in DIE order, so
// they are sorted by offset; seal then points a bucket per 16 bytes of the
// unit at the first entry at or after it. A lookup reads one bucket and an
// entry or two, near the ones it read before, and the index costs a
// quarter of a byte per byte of the unit.
type offsetIndex struct {
	base, size uint64     // the unit's offset and length
	entries    []offEntry // ascending rel
	buckets    []int32    // buckets[b]: first entry with rel >= b<<bucketShift
}

// offEntry is a DIE's offset relative to its unit, and its value.
type offEntry struct {
	rel uint32
	val int32
}

const bucketShift = 4

func compareRel(a, b offEntry) int { return cmp.Compare(a.rel, b.rel) }

// begin empties the index for the unit at base of size bytes; lookups
// find nothing until seal.
func (x *offsetIndex) begin(base, size uint64) {
	x.base, x.size = base, size
	x.entries = x.entries[:0]
	x.buckets = x.buckets[:0]
}

// record adds the DIE at off with value v; offsets outside the unit are
// left out.
func (x *offsetIndex) record(off uint64, v int32) {
	if rel := off - x.base; off >= x.base && rel < x.size {
		x.entries = add(x.entries, offEntry{uint32(rel), v})
	}
}

// seal builds the buckets once every entry is recorded.
func (x *offsetIndex) seal() {
	// The reader moves forward, so the walk records DIEs in offset order;
	// should that ever not hold, sort.
	for j := 1; j < len(x.entries); j++ {
		if x.entries[j].rel <= x.entries[j-1].rel {
			slices.SortStableFunc(x.entries, compareRel)
			break
		}
	}
	nb := int(x.size>>bucketShift) + 1
	if cap(x.buckets) < nb {
		x.buckets = make([]int32, nb)
	}
	buckets := x.buckets[:nb]
	b := 0
	for j, e := range x.entries {
		for eb := int(e.rel >> bucketShift); b <= eb; b++ {
			buckets[b] = int32(j)
		}
	}
	for ; b < nb; b++ {
		buckets[b] = int32(len(x.entries))
	}
	x.buckets = buckets
}

// get returns the value recorded for off, 0 if none.
func (x *offsetIndex) get(off uint64) int32 {
	rel := off - x.base
	if off < x.base || rel >= x.size || len(x.buckets) == 0 {
		return 0
	}
	r := uint32(rel)
	for j := int(x.buckets[r>>bucketShift]); j < len(x.entries); j++ {
		e := x.entries[j]
		if e.rel >= r {
			if e.rel == r {
				return e.val
			}
			return 0
		}
	}
	return 0
}
