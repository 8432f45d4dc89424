package dwarf

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// strTable indexes the NUL bytes of .debug_str with one bit per byte, so
// that resolving a DW_FORM_strp/strx string finds its length in a bitmap
// that stays in cache (a few hundred KB for a kernel) instead of scanning
// the string itself: most strings a walk decodes are never looked at.
type strTable struct {
	once sync.Once
	nul  []uint64
}

// nulBitmap returns one bit per byte of b, set for the NUL bytes. It reads
// b eight bytes at a time: it is on the walk's critical path (every worker
// waits for the first), and a module's .debug_str holds its strings
// unmerged.
func nulBitmap(b []byte) []uint64 {
	nul := make([]uint64, (len(b)+63)/64)
	const low7, lsb = 0x7f7f7f7f7f7f7f7f, 0x0101010101010101
	whole := len(b) &^ 63
	for i := 0; i < whole; i += 64 {
		var w uint64
		for k := 0; k < 8; k++ {
			v := binary.LittleEndian.Uint64(b[i+8*k:])
			// 0x80 in each byte of v that is zero, 0 in the others.
			z := ^((v&low7 + low7) | v | low7)
			// Gather the eight flags into one byte, byte j to bit j.
			w |= ((z >> 7) * 0x0102040810204080 >> 56) << (8 * k)
		}
		nul[i>>6] = w
	}
	for i := whole; i < len(b); i++ {
		if b[i] == 0 {
			nul[i>>6] |= 1 << (i & 63)
		}
	}
	return nul
}

// strLen returns the length of the NUL-terminated string at off, using the
// bitmap nul of sec; ok is false when off is out of range or the string is
// unterminated.
func strLen(nul []uint64, off uint64) (n int, ok bool) {
	w := off >> 6
	if w >= uint64(len(nul)) {
		return 0, false
	}
	if word := nul[w] >> (off & 63); word != 0 {
		return bits.TrailingZeros64(word), true
	}
	for w++; w < uint64(len(nul)); w++ {
		if word := nul[w]; word != 0 {
			return int(w*64 + uint64(bits.TrailingZeros64(word)) - off), true
		}
	}
	return 0, false
}
