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
// entry, how many grows preceded its insertion (its epoch) and replays that:
// after E grows, a key lists first its entries of epochs with E's parity,
// newest first, then the others, oldest first. (With S(E) the list after E
// grows, N(e) the epoch-e entries newest first and O(e) oldest first:
// S(E) = N(E) ++ reverse(S(E-1)) = N(E) ++ S(E-2) ++ O(E-1).)
//
// The keys themselves live in an open-addressing table of chain heads.
type candTable struct {
	slotKey  []uint64
	slotHead []int32 // newest entry of the slot's key, -1 if the slot is free
	used     int

	ids   []uint32 // entry: candidate type id
	next  []int32  // entry: the next older entry of the same key, -1 at the end
	epoch []uint8  // entry: parity of the number of libbpf grows before it

	// libbpf hashmap emulation: its entry count and capacity.
	libbpfCap int
	grows     int

	scratch []uint32
}

// newCandTable returns a table sized for about n entries.
func newCandTable(n int) *candTable {
	size := 1024
	for size < 2*n {
		size *= 2
	}
	t := &candTable{
		slotKey:  make([]uint64, size),
		slotHead: make([]int32, size),
		ids:      make([]uint32, 0, n),
		next:     make([]int32, 0, n),
		epoch:    make([]uint8, 0, n),
	}
	for i := range t.slotHead {
		t.slotHead[i] = -1
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
	mask := len(t.slotKey) - 1
	i := slotIndex(h, mask)
	for t.slotHead[i] >= 0 && t.slotKey[i] != h {
		i = (i + 1) & mask
	}
	return i
}

// add appends candidate id under key h (btf_dedup_table_add).
func (t *candTable) add(h uint64, id uint32) {
	// libbpf's hashmap__append grows before inserting when needed.
	if t.libbpfCap == 0 || (len(t.ids)+1)*4/3 > t.libbpfCap {
		if t.libbpfCap == 0 {
			t.libbpfCap = 4
		} else {
			t.libbpfCap *= 2
		}
		t.grows++
	}
	if 2*(t.used+1) > len(t.slotKey) {
		t.rehash()
	}
	s := t.find(h)
	if t.slotHead[s] < 0 {
		t.slotKey[s] = h
		t.used++
	}
	t.ids = append(t.ids, id)
	t.next = append(t.next, t.slotHead[s])
	t.epoch = append(t.epoch, uint8(t.grows&1))
	t.slotHead[s] = int32(len(t.ids) - 1)
}

// rehash doubles the slot array.
func (t *candTable) rehash() {
	oldKey, oldHead := t.slotKey, t.slotHead
	t.slotKey = make([]uint64, 2*len(oldKey))
	t.slotHead = make([]int32, 2*len(oldHead))
	for i := range t.slotHead {
		t.slotHead[i] = -1
	}
	for i, head := range oldHead {
		if head >= 0 {
			s := t.find(oldKey[i])
			t.slotKey[s], t.slotHead[s] = oldKey[i], head
		}
	}
}

// candidates returns the candidates of key h in the order libbpf tries them.
// The slice is only valid until the next call.
func (t *candTable) candidates(h uint64) []uint32 {
	head := t.slotHead[t.find(h)]
	out := t.scratch[:0]
	if head < 0 {
		return out
	}
	if t.next[head] < 0 { // the common case: one candidate
		out = append(out, t.ids[head])
		t.scratch = out
		return out
	}
	parity := uint8(t.grows & 1)
	mixed := false
	for e := head; e >= 0; e = t.next[e] {
		if t.epoch[e] == parity {
			out = append(out, t.ids[e])
		} else {
			mixed = true
		}
	}
	if mixed {
		n := len(out)
		for e := head; e >= 0; e = t.next[e] {
			if t.epoch[e] != parity {
				out = append(out, t.ids[e])
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
