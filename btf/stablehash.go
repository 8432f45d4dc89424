package btf

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// stableHash is a string hash that is the same in every process, for
// string indexes stored on disk (see prepared.go); maphash, which the
// other indexes use, is seeded per process. It reads 8 bytes at a time and
// mixes with 64×64→128-bit multiplications (the wyhash construction).
func stableHash(str string) uint64 {
	const m1, m2, m3 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3
	b := unsafe.Slice(unsafe.StringData(str), len(str))
	h := uint64(len(str)) ^ m1
	for len(b) >= 8 {
		h = mix(h^binary.LittleEndian.Uint64(b), m2)
		b = b[8:]
	}
	var tail uint64
	for i := len(b) - 1; i >= 0; i-- {
		tail = tail<<8 | uint64(b[i])
	}
	return mix(mix(h^tail, m3), m1^uint64(len(str)))
}

// mix folds the 128-bit product of a and b.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
