package btf

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestDedupLazyBaseMatchesEager: split types deduplicated on a base whose
// per-id state the dedup leaves unfilled (a parsed base, lazyBase) give
// the bytes of the same dedup with that state filled in for every base id
// (the base marked unchecked, which takes the eager path). The random
// units meet the base's structs, forward declarations and enums, so that
// the struct pass writes hypot for base ids and base declarations get
// mapped to own types.
func TestDedupLazyBaseMatchesEager(t *testing.T) {
	lazyRuns := 0
	for seed := range uint64(300) {
		base, err := Dedup(randomCUs(seed, 4))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base.Marshal(binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		dedupOn := func(eager bool) ([]byte, bool) {
			b, err := Parse(raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if eager {
				b.valid = 0
			}
			split := NewSplitTypes(b)
			rng := rand.New(rand.NewPCG(seed, 7))
			for range 3 {
				if err := split.Append(randomCU(rng), nil); err != nil {
					t.Fatal(err)
				}
			}
			s, err := StartDedup(split)
			if err != nil {
				t.Fatal(err)
			}
			lazy := s.d.lazyBase != 0
			if err := s.Structs(); err != nil {
				t.Fatal(err)
			}
			out, err := s.Finish()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			enc, err := out.Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			return enc, lazy
		}
		got, lazy := dedupOn(false)
		want, eagerLazy := dedupOn(true)
		if eagerLazy {
			t.Fatal("a base marked unchecked took the lazy path")
		}
		if lazy {
			lazyRuns++
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: the dedup on the lazy base gives %d bytes, on the eager one %d, not the same", seed, len(got), len(want))
		}
	}
	if lazyRuns == 0 {
		t.Fatal("no dedup took the lazy path")
	}
}
