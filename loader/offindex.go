package loader

import (
	"cmp"
	"slices"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// offsetIndex maps the offsets of one table's recorded DIEs (types,
// subprograms, parameters, variables) to int32 values: a type's raw index
// + 1, or a slot (funcwalk.go). The walk records entries in DIE order, so
// they are sorted by offset; seal then points a bucket per 16 bytes of the
// unit at the first entry at or after it. A lookup reads one bucket and an
// entry or two, near the ones it read before, and the index costs a
// quarter of a byte per byte of the unit.
type offsetIndex struct {
	base, size uint64     // the unit's offset and length
	more       []offSpan  // the table's other units, if any, after it in rel
	total      uint64     // the length of all units
	entries    []offEntry // ascending rel
	buckets    []int32    // buckets[b]: first entry with rel >= b<<bucketShift
}

// offSpan is a unit of a table of several units that do not follow each
// other in .debug_info: its DIEs' rel is at + their offset in the unit.
type offSpan struct{ base, size, at uint64 }

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
	x.base, x.size, x.total = base, size, size
	x.more = x.more[:0]
	x.entries = x.entries[:0]
	x.buckets = x.buckets[:0]
}

// beginUnits empties the index for the DIEs of units, which need not
// follow each other in .debug_info nor be in its order; lookups find
// nothing until seal.
func (x *offsetIndex) beginUnits(units []*dwarf.Unit) {
	x.more = x.more[:0]
	for _, u := range units {
		x.more = append(x.more, offSpan{base: u.Offset, size: u.End - u.Offset})
	}
	slices.SortFunc(x.more, func(a, b offSpan) int { return cmp.Compare(a.base, b.base) })
	first := x.more[0]
	x.more = x.more[1:]
	x.base, x.size, x.total = first.base, first.size, first.size
	for i := range x.more {
		x.more[i].at = x.total
		x.total += x.more[i].size
	}
	x.entries = x.entries[:0]
	x.buckets = x.buckets[:0]
}

// rel returns the position of off in the index's units, and whether it
// is in one.
func (x *offsetIndex) rel(off uint64) (uint64, bool) {
	if r := off - x.base; off >= x.base && r < x.size {
		return r, true
	}
	return x.relMore(off)
}

// relMore is rel for the units after the first, which are in offset
// order.
func (x *offsetIndex) relMore(off uint64) (uint64, bool) {
	i, _ := slices.BinarySearchFunc(x.more, off, func(s offSpan, off uint64) int { return cmp.Compare(s.base+s.size, off+1) })
	if i < len(x.more) {
		if s := x.more[i]; off >= s.base && off-s.base < s.size {
			return s.at + off - s.base, true
		}
	}
	return 0, false
}

// record adds the DIE at off with value v; offsets outside the units are
// left out.
func (x *offsetIndex) record(off uint64, v int32) {
	if rel, ok := x.rel(off); ok {
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
	nb := int(x.total>>bucketShift) + 1
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
	if off < x.base || rel >= x.size {
		var ok bool
		if rel, ok = x.relMore(off); !ok {
			return 0
		}
	}
	if len(x.buckets) == 0 {
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
