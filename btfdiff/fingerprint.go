package btfdiff

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
)

// fingerprint stands for a content key (or an entity's kind and name) in
// maps: the first 128 bits of its SHA-256. Two inputs' Sets are compared
// through fingerprints, which fit in a map slot and compare without
// touching the key's bytes; at 2^17 keys an accidental collision has odds
// below 2^-90.
type fingerprint struct{ hi, lo uint64 }

func fingerprintOf(b []byte) fingerprint {
	sum := sha256.Sum256(b)
	return fingerprint{binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])}
}

func (f fingerprint) compare(g fingerprint) int {
	return cmp.Or(cmp.Compare(f.hi, g.hi), cmp.Compare(f.lo, g.lo))
}
