package btf

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
type candTable struct {
	slots   []candSlot
	used    int
	entries []candEntry

	// libbpf hashmap emulation: its capacity and number of grows so far.
	libbpfCap int
	grows     int

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

// newCandTable returns an empty table; n is a hint of its final size.
func newCandTable(n int) *candTable {
	slots := 1024
	for slots < 2*n { // add keeps at most half of the slots used
		slots *= 2
	}
	t := &candTable{slots: make([]candSlot, slots), entries: make([]candEntry, 0, n)}
	for i := range t.slots {
		t.slots[i].head = -1
	}
	return t
}

// slotIndex spreads a hash over the slots (Fibonacci hashing, as libbpf's
// hash_bits does).
func slotIndex(h uint64, mask int) int {
	return int((h*11400714819323198485)>>32) & mask
}

// find returns the slot of key h, or the free slot where it would go.
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
	if t.libbpfCap == 0 || (len(t.entries)+1)*4/3 > t.libbpfCap {
		if t.libbpfCap == 0 {
			t.libbpfCap = 4
		} else {
			t.libbpfCap *= 2
		}
		t.grows++
	}
	if 2*(t.used+1) > len(t.slots) {
		t.rehash()
	}
	s := &t.slots[t.find(h)]
	if s.head < 0 {
		s.key = h
		t.used++
		s.id = id
	} else {
		s.id = id | multiBit
	}
	e := int32(len(t.entries))
	t.entries = append(t.entries, candEntry{id: id, next: s.head, parity: uint8(t.grows & 1)})
	s.head = e
	return e
}

// rehash doubles the slot array.
func (t *candTable) rehash() {
	old := t.slots
	t.slots = make([]candSlot, 2*len(old))
	for i := range t.slots {
		t.slots[i].head = -1
	}
	for _, s := range old {
		if s.head >= 0 {
			t.slots[t.find(s.key)] = s
		}
	}
}

// candidates returns the candidates of key h in the order libbpf tries them.
// The slice is only valid until the next call.
func (t *candTable) candidates(h uint64) []uint32 {
	s := &t.slots[t.find(h)]
	out := t.scratch[:0]
	if s.head < 0 {
		return out
	}
	if s.id&multiBit == 0 { // the common case: one candidate
		out = append(out, s.id)
		t.scratch = out
		return out
	}
	head, es := s.head, t.entries
	parity := uint8(t.grows & 1)
	mixed := false
	for e := head; e >= 0; e = es[e].next {
		if es[e].parity == parity {
			out = append(out, es[e].id)
		} else {
			mixed = true
		}
	}
	if mixed {
		n := len(out)
		for e := head; e >= 0; e = es[e].next {
			if es[e].parity != parity {
				out = append(out, es[e].id)
			}
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
	pa, pb := t.entries[a].parity == parity, t.entries[b].parity == parity
	switch {
	case pa != pb:
		return pa // the current parity's entries come first
	case pa:
		return a > b // newest first
	default:
		return a < b // oldest first
	}
}
