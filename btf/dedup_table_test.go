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
	table := newCandTable(16)
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
