package btf

import "slices"

// candTable is the dedup table: type signature hash -> canonical candidates.
//
// libbpf keeps the candidates in its generic hashmap (hashmap.c) and tries
// them in the order that map happens to list them, and the first match wins,
// so the order is part of the algorithm's result. That map prepends each new
// entry to its bucket's list, and each time it grows (when (size+1)*4/3
// exceeds the capacity, which starts at 4 buckets and doubles) it re-inserts
// every entry by walking the old lists from the head, which reverses the
// relative order of the entries of one key. candTable records, for each
// entry, the parity of the number of grows that preceded its insertion (its
// epoch) and replays that: after E grows, a key lists first its entries of
// epochs with E's parity, newest first, then the others, oldest first.
// (With S(E) the list after E grows, N(e) the epoch-e entries newest first
// and O(e) oldest first: S(E) = N(E) ++ reverse(S(E-1)) = N(E) ++ S(E-2) ++
// O(E-1).)
//
// The keys live in an open-addressing table of chain heads.
//
// A table may lie over a read-only one (base: a prepared base's tables, in
// the mapped file, see dedupSnapshot): the base's entries keep their
// indexes, the table's own are numbered after them, and the table's slots
// hold only the keys it added to, each chain running on into the base's
// chain of the same key. A module's dedup on the kernel's prepared base so
// reads the kernel's table in place instead of copying it.
type candTable struct {
	slots   []candSlot
	used    int
	entries []candEntry // own entries, numbered from nBase

	base  *candTable // read-only, or nil
	nBase int32      // len(base.entries)
	// baseIDs bounds the base's ids: they are below it. none is what
	// entry gives for a base entry whose index, id or next is out of
	// range (see baseEntry).
	baseIDs uint32
	none    candEntry

	// libbpf hashmap emulation: its capacity and number of grows so far
	// (the base's entries included).
	libbpfCap int
	grows     int

	// dense: the table is filled once and then only read (a prepared
	// base's, prepareDedup): it keeps at most 4/5 of its slots used, as
	// packed does, instead of half, so that packing it copies nothing.
	dense bool

	scratch []uint32
}

type candSlot struct {
	key  uint64
	head int32  // newest entry of the key, -1 if the slot is free
	id   uint32 // its candidate, with multiBit set if the key has more
}

// multiBit marks a slot whose key has several entries (ids are below it).
const multiBit = 1 << 31

type candEntry struct {
	id     uint32
	next   int32 // the next older entry of the same key, -1 at the end
	parity uint8 // parity of the number of libbpf grows before its insertion
}

// newCandTable returns an empty table, dense or not, with room for n keys
// (a hint of its final size).
func newCandTable(n int, dense bool) *candTable {
	t := &candTable{entries: make([]candEntry, 0, n), dense: dense}
	slots := 1024
	for t.crowded(n, slots) {
		slots *= 2
	}
	t.slots = make([]candSlot, slots)
	for i := range t.slots {
		t.slots[i].head = -1
	}
	return t
}

// crowded reports whether n keys in size slots would be too many for t:
// more than half of them, or 4/5 if t is dense.
func (t *candTable) crowded(n, size int) bool {
	if t.dense {
		return 5*n > 4*size
	}
	return 2*n > size
}

// slotIndex spreads a hash over the slots (Fibonacci hashing, as libbpf's
// hash_bits does).
func slotIndex(h uint64, mask int) int {
	return int((h*11400714819323198485)>>32) & mask
}

// overlay returns an empty table over base, which is not changed after,
// and whose ids are below baseIDs (the base's next id). base's slots and
// entries may be anything (a prepared base's file, checked or not): the
// reads of them (baseHead, baseEntry) keep every index in range and every
// chain going to older entries, so a damaged base gives wrong candidates,
// never a panic or an endless walk.
func overlay(base *candTable, baseIDs uint32) *candTable {
	t := newCandTable(0, false)
	t.base, t.nBase = base, int32(min(len(base.entries), maxMappedID))
	t.libbpfCap, t.grows = base.libbpfCap, base.grows
	t.baseIDs, t.none.next = baseIDs, -1
	return t
}

// entry returns entry e, the base's or an own one. An own entry's index is
// always in range (add made it); a base entry's is checked (baseEntry).
func (t *candTable) entry(e int32) *candEntry {
	if e >= t.nBase {
		return &t.entries[e-t.nBase]
	}
	return t.baseEntry(e)
}

// baseEntry returns base entry e, or &t.none (no candidate, next -1) if e
// is outside the base's entries, or the entry's id is not below baseIDs
// or its next is not an older entry (below e): a chain of base
// entries so only goes down, and ends.
func (t *candTable) baseEntry(e int32) *candEntry {
	if uint32(e) < uint32(t.nBase) {
		if en := &t.base.entries[e]; en.id < t.baseIDs && en.next < e {
			return en
		}
	}
	return &t.none
}

// head returns the newest entry of key h and its slot's id (see candSlot),
// from the own slots, else the base's; head -1 if h has none.
func (t *candTable) head(h uint64) (int32, uint32) {
	if s := &t.slots[t.find(h)]; s.head >= 0 {
		return s.head, s.id
	}
	if t.base != nil {
		return t.baseHead(h)
	}
	return -1, 0
}

// baseHead returns the head of key h in the base's slots and the slot's id,
// or -1 if the base has none, or its slot is out of range (the head not
// one of the base's entries, the id not below baseIDs). It probes each
// slot at most once: a base whose slots are all in use (a damaged file)
// ends the probe too.
func (t *candTable) baseHead(h uint64) (int32, uint32) {
	b := t.base
	mask := len(b.slots) - 1
	i := slotIndex(h, mask)
	for range len(b.slots) {
		s := &b.slots[i]
		if s.head < 0 {
			break
		}
		if s.key == h {
			if s.head < t.nBase && s.id&^multiBit < t.baseIDs {
				return s.head, s.id
			}
			break
		}
		i = (i + 1) & mask
	}
	return -1, 0
}

// find returns the slot of key h, or the free slot where it would go. The
// probe ends because an own table keeps free slots (add, reserve and
// packed keep at most 4/5 used); a base's is probed by baseHead.
func (t *candTable) find(h uint64) int {
	mask := len(t.slots) - 1
	i := slotIndex(h, mask)
	for t.slots[i].head >= 0 && t.slots[i].key != h {
		i = (i + 1) & mask
	}
	return i
}

// add appends candidate id under key h (btf_dedup_table_add) and returns
// the new entry's index.
func (t *candTable) add(h uint64, id uint32) int32 {
	// libbpf's hashmap__append grows before inserting when needed.
	if t.libbpfCap == 0 || (int(t.nBase)+len(t.entries)+1)*4/3 > t.libbpfCap {
		if t.libbpfCap == 0 {
			t.libbpfCap = 4
		} else {
			t.libbpfCap *= 2
		}
		t.grows++
	}
	if t.crowded(t.used+1, len(t.slots)) {
		t.rehash()
	}
	s := &t.slots[t.find(h)]
	if s.head < 0 {
		s.key = h
		t.used++
		if t.base != nil { // the chain runs on into the base's
			s.head, _ = t.baseHead(h)
		}
	}
	if s.head < 0 {
		s.id = id
	} else {
		s.id = id | multiBit
	}
	e := t.nBase + int32(len(t.entries))
	t.entries = append(t.entries, candEntry{id: id, next: s.head, parity: uint8(t.grows & 1)})
	s.head = e
	return e
}

// reserve makes room for n more entries, so that adding them neither
// rehashes more than once nor regrows the entries' array step by step. It
// changes nothing add decides (libbpf's emulated capacity is apart).
func (t *candTable) reserve(n int) {
	if size := len(t.slots); t.crowded(t.used+n, size) {
		for t.crowded(t.used+n, size) {
			size *= 2
		}
		t.rehashTo(size)
	}
	t.entries = slices.Grow(t.entries, n)
}

// packed returns t with the fewest slots (a power of two) that keep at most
// 4/5 of them used, for a table that is only read from then on: the base
// under an overlay, in a prepared base's file, where every slot the probes
// reach is paged in and the half-empty table add keeps would be twice the
// memory.
func (t *candTable) packed() candTable {
	p := *t
	if t.dense && len(t.slots) == packedSlots(t.used, 1024) {
		return p
	}
	p.slots = t.reslotted(packedSlots(t.used, 1024))
	return p
}

// rehash doubles the slot array.
func (t *candTable) rehash() { t.rehashTo(2 * len(t.slots)) }

// rehashTo moves the slots to an array of size slots, a power of two.
func (t *candTable) rehashTo(size int) { t.slots = t.reslotted(size) }

// reslotted returns t's slots moved to a new array of size slots, a power
// of two that holds them all.
func (t *candTable) reslotted(size int) []candSlot {
	n := candTable{slots: make([]candSlot, size)}
	for i := range n.slots {
		n.slots[i].head = -1
	}
	for _, s := range t.slots {
		if s.head >= 0 {
			n.slots[n.find(s.key)] = s
		}
	}
	return n.slots
}

// candidates returns the candidates of key h in the order libbpf tries them.
// The slice is only valid until the next call.
func (t *candTable) candidates(h uint64) []uint32 {
	head, id := t.head(h)
	out := t.scratch[:0]
	if head < 0 {
		return out
	}
	if id&multiBit == 0 { // the common case: one candidate
		out = append(out, id)
		t.scratch = out
		return out
	}
	parity := uint8(t.grows & 1)
	mixed := false
	// Each entry's next is older (below it): the walks end. A base entry
	// out of range (t.none) ends them too.
	for e := head; e >= 0; {
		en := t.entry(e)
		if en == &t.none {
			break
		}
		if en.parity == parity {
			out = append(out, en.id)
		} else {
			mixed = true
		}
		e = en.next
	}
	if mixed {
		n := len(out)
		for e := head; e >= 0; {
			en := t.entry(e)
			if en == &t.none {
				break
			}
			if en.parity != parity {
				out = append(out, en.id)
			}
			e = en.next
		}
		// The other parity is listed oldest first.
		for i, j := n, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	t.scratch = out
	return out
}

// before reports whether entry a comes before entry b in the order
// candidates lists their key's entries.
func (t *candTable) before(a, b int32) bool {
	parity := uint8(t.grows & 1)
	pa, pb := t.entry(a).parity == parity, t.entry(b).parity == parity
	switch {
	case pa != pb:
		return pa // the current parity's entries come first
	case pa:
		return a > b // newest first
	default:
		return a < b // oldest first
	}
}
