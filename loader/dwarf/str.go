package dwarf

import (
	"bytes"
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

// strNul returns the NUL bitmap of .debug_str, building it on first use.
func (d *Data) strNul() []uint64 {
	d.strs.once.Do(func() {
		str := d.str
		nul := make([]uint64, (len(str)+63)/64)
		for i := 0; i < len(str); {
			j := bytes.IndexByte(str[i:], 0)
			if j < 0 {
				break
			}
			p := i + j
			nul[p>>6] |= 1 << (p & 63)
			i = p + 1
		}
		d.strs.nul = nul
	})
	return d.strs.nul
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
