package btf

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// libbpfHashmap models libbpf's hashmap.c as btf_dedup uses it (identity
// hash, hashmap__append, hashmap__for_each_key_entry), to check that
// candTable lists candidates in the same order.
type libbpfHashmap struct {
	buckets [][]modelEntry // each bucket's list, head first
	bits    int
	size    int
}

type modelEntry struct {
	key uint64
	val uint32
}

func hashBits(h uint64, bits int) int {
	if bits == 0 {
		return 0
	}
	return int((h * 11400714819323198485) >> (64 - bits))
}

func (m *libbpfHashmap) append(key uint64, val uint32) {
	if len(m.buckets) == 0 || (m.size+1)*4/3 > len(m.buckets) {
		bits := max(m.bits+1, 2)
		nb := make([][]modelEntry, 1<<bits)
		for _, b := range m.buckets {
			for _, e := range b { // from the head, each prepended to its new bucket
				h := hashBits(e.key, bits)
				nb[h] = append([]modelEntry{e}, nb[h]...)
			}
		}
		m.buckets, m.bits = nb, bits
	}
	h := hashBits(key, m.bits)
	m.buckets[h] = append([]modelEntry{{key, val}}, m.buckets[h]...)
	m.size++
}

func (m *libbpfHashmap) values(key uint64) []uint32 {
	var out []uint32
	if len(m.buckets) == 0 {
		return out
	}
	for _, e := range m.buckets[hashBits(key, m.bits)] {
		if e.key == key {
			out = append(out, e.val)
		}
	}
	return out
}

// TestCandTableOrderMatchesLibbpfHashmap inserts keys from a small set so
// that lists grow long across many grows, and compares every list.
func TestCandTableOrderMatchesLibbpfHashmap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var model libbpfHashmap
	table := newCandTable(16, false)
	keys := []uint64{0, 1, 31, 12345678901234, 1 << 40}
	entryOf := map[uint32]int32{}
	for i := range uint32(5000) {
		k := keys[rng.IntN(len(keys))]
		model.append(k, i)
		entryOf[i] = table.add(k, i)
		if i%97 != 0 {
			continue
		}
		for _, k := range keys {
			want := model.values(k)
			got := slices.Clone(table.candidates(k))
			if !slices.Equal(got, want) {
				t.Fatalf("after %d inserts, key %d: got %v, want %v", i+1, k, got, want)
			}
			for j := 1; j < len(got); j++ {
				if !table.before(entryOf[got[j-1]], entryOf[got[j]]) || table.before(entryOf[got[j]], entryOf[got[j-1]]) {
					t.Fatalf("after %d inserts, key %d: before() disagrees with the order at %d", i+1, k, j)
				}
			}
		}
	}
}

// TestCandTableReserve: room reserved for n entries takes them without a
// rehash or a new entries array, and the table lists every key's
// candidates as libbpf's map does, reserved or not.
func TestCandTableReserve(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var model libbpfHashmap
	table := newCandTable(4, false)
	add := func(from, to uint32) {
		for i := from; i < to; i++ {
			k := uint64(rng.IntN(700))
			model.append(k, i)
			table.add(k, i)
		}
	}
	add(0, 300)
	const n = 5000
	table.reserve(n)
	slots, entries := &table.slots[0], &table.entries[:cap(table.entries)][0]
	add(300, 300+n)
	if &table.slots[0] != slots || &table.entries[0] != entries {
		t.Errorf("adding the %d entries reserved for moved the slots or the entries", n)
	}
	for k := range uint64(700) {
		if got, want := table.candidates(k), model.values(k); !slices.Equal(got, want) {
			t.Fatalf("key %d: got %v, want %v", k, got, want)
		}
	}
}

// TestCandTableOverlayMatchesLibbpfHashmap: a table laid over another
// (overlay), which is not changed after, lists the candidates of every key
// in the order libbpf's one map holding both tables' insertions does, with
// entry indexes before() agrees with; keys only the base or only the
// overlay has included.
func TestCandTableOverlayMatchesLibbpfHashmap(t *testing.T) {
	for _, split := range []int{0, 1, 7, 300, 2000} {
		rng := rand.New(rand.NewPCG(3, uint64(split)))
		var model libbpfHashmap
		base := newCandTable(16, false)
		keys := []uint64{0, 1, 31, 12345678901234, 1 << 40, 77, 78}
		entryOf := map[uint32]int32{}
		for i := range uint32(split) {
			k := keys[rng.IntN(5)] // the last two keys: overlay only
			model.append(k, i)
			entryOf[i] = base.add(k, i)
		}
		baseSlots, baseEntries := slices.Clone(base.slots), slices.Clone(base.entries)
		table := overlay(base, 1<<31)
		for i := uint32(split); i < 4000; i++ {
			k := keys[rng.IntN(len(keys))]
			model.append(k, i)
			entryOf[i] = table.add(k, i)
			if i%89 != 0 && i != 3999 {
				continue
			}
			for _, k := range append(keys, 999) {
				want := model.values(k)
				got := slices.Clone(table.candidates(k))
				if !slices.Equal(got, want) {
					t.Fatalf("base of %d, after %d inserts, key %d: got %v, want %v", split, i+1, k, got, want)
				}
				for j := 1; j < len(got); j++ {
					if !table.before(entryOf[got[j-1]], entryOf[got[j]]) {
						t.Fatalf("base of %d, after %d inserts, key %d: before() disagrees with the order at %d", split, i+1, k, j)
					}
				}
			}
		}
		if !slices.Equal(base.slots, baseSlots) || !slices.Equal(base.entries, baseEntries) {
			t.Errorf("base of %d: the overlay changed the base table", split)
		}
	}
}

// TestCandTableOverlayDamagedBase: a table over a damaged base (every
// slot in use, heads and entry indexes out of range, a chain that goes
// round or up, ids past the base's) lists candidates that are base ids,
// and its walks end; adding over such a base works.
func TestCandTableOverlayDamagedBase(t *testing.T) {
	const baseIDs = 50
	keys := []uint64{0, 1, 31, 12345678901234, 1 << 40, 77}
	for _, damage := range []struct {
		what  string
		slot  func(i int) candSlot
		entry func(i int) candEntry
	}{
		{"every slot used, other keys", func(i int) candSlot { return candSlot{key: 1<<50 + uint64(i), head: 0, id: 1} },
			func(i int) candEntry { return candEntry{id: 1, next: -1} }},
		{"chains to themselves", func(i int) candSlot { return candSlot{key: keys[i%len(keys)], head: int32(i % 4), id: 2 | multiBit} },
			func(i int) candEntry { return candEntry{id: 2, next: int32(i)} }},
		{"chains upwards", func(i int) candSlot { return candSlot{key: keys[i%len(keys)], head: 0, id: 2 | multiBit} },
			func(i int) candEntry { return candEntry{id: 3, next: int32(i + 1), parity: uint8(i % 2)} }},
		{"heads out of range", func(i int) candSlot { return candSlot{key: keys[i%len(keys)], head: 1 << 30, id: 2 | multiBit} },
			func(i int) candEntry { return candEntry{id: 2, next: -1} }},
		{"ids past the base", func(i int) candSlot { return candSlot{key: keys[i%len(keys)], head: 3, id: baseIDs + uint32(i)} },
			func(i int) candEntry { return candEntry{id: baseIDs + 7, next: int32(i - 1)} }},
		{"next far below", func(i int) candSlot { return candSlot{key: keys[i%len(keys)], head: 3, id: 4 | multiBit} },
			func(i int) candEntry { return candEntry{id: 4, next: -1 << 30} }},
	} {
		base := &candTable{slots: make([]candSlot, 8), entries: make([]candEntry, 4), libbpfCap: 8, grows: 1}
		for i := range base.slots {
			base.slots[i] = damage.slot(i)
		}
		for i := range base.entries {
			base.entries[i] = damage.entry(i)
		}
		table := overlay(base, baseIDs)
		check := func(when string) {
			for _, k := range append(keys, 999, 1<<50+3) {
				for _, id := range table.candidates(k) {
					if id >= baseIDs && id < 1000 {
						t.Fatalf("%s, %s, key %d: candidate %d past the base's ids", damage.what, when, k, id)
					}
				}
			}
		}
		check("before adding")
		for i, k := range keys {
			e := table.add(k, uint32(1000+i))
			table.before(e, 0)
			table.before(e, 3)
		}
		check("after adding")
	}
}
