package btf

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestStrRuns: a run's number is the count of NULs before its offset, for
// sections with long runs (words of nul without a NUL), NULs at word
// boundaries, an empty section and one that ends without a NUL.
func TestStrRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	secs := [][]byte{{}, {0}, []byte("abc"), []byte("a\x00b\x00"), bytes.Repeat([]byte{'x'}, 200)}
	edge := bytes.Repeat([]byte{'y'}, 300)
	for _, at := range []int{0, 63, 64, 127, 128, 255} {
		edge[at] = 0
	}
	secs = append(secs, edge)
	for range 20 {
		sec := make([]byte, rng.IntN(2000))
		for i := range sec {
			if rng.IntN(max(1, rng.IntN(200))) == 0 {
				sec[i] = 0
			} else {
				sec[i] = 'a'
			}
		}
		secs = append(secs, sec)
	}
	for k, sec := range secs {
		r := newStrRuns(sec)
		if want := bytes.Count(sec, []byte{0}) + 1; r.runs != want {
			t.Errorf("section %d: %d runs, want %d", k, r.runs, want)
		}
		nuls := uint32(0)
		for off := range sec {
			if got := r.run(uint32(off)); got != nuls {
				t.Fatalf("section %d (%d bytes): offset %d in run %d, want %d", k, len(sec), off, got, nuls)
			}
			if sec[off] == 0 {
				nuls++
			}
		}
	}
}
