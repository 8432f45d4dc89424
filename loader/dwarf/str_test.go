package dwarf

import (
	"math/rand/v2"
	"testing"
)

// TestNulBitmap: nulBitmap sets exactly the bits of the NUL bytes, byte
// by byte, whatever the bytes around them (all 256 values, runs of NULs,
// lengths that are not a multiple of 64).
func TestNulBitmap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 7, 63, 64, 65, 200, 4096 + 13} {
		for round := range 20 {
			b := make([]byte, n)
			for i := range b {
				switch x := rng.IntN(4); {
				case x == 0 || round == 0:
					b[i] = 0
				case round == 1:
					b[i] = 0x80 | byte(rng.IntN(128))
				default:
					b[i] = byte(rng.IntN(256))
				}
			}
			nul := nulBitmap(b)
			if len(nul) != (n+63)/64 {
				t.Fatalf("%d bytes: %d words", n, len(nul))
			}
			for i, c := range b {
				if got := nul[i>>6]>>(i&63)&1 == 1; got != (c == 0) {
					t.Fatalf("%d bytes, round %d: byte %d is %#x, bit %v", n, round, i, c, got)
				}
			}
		}
	}
}

func BenchmarkNulBitmap(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	str := make([]byte, 2<<20)
	for i := range str {
		if rng.IntN(16) == 0 {
			str[i] = 0
		} else {
			str[i] = 'a' + byte(rng.IntN(26))
		}
	}
	b.SetBytes(int64(len(str)))
	for b.Loop() {
		nulBitmap(str)
	}
}
