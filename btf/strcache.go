package btf

import (
	"bytes"
	"math/bits"
	"unsafe"
)

// strSection caches one value per string that aliases a DWARF string
// section (.debug_str, .debug_line_str), keyed by where the string starts
// in it: names found there are interned by address, cheaper than by
// content.
//
// A value per byte of the section would be simplest, but costs 4 bytes
// per byte: 15 MB per cache for the kernel's .debug_str, and there is a
// cache per worker and one in the splicer. Here a cache holds a slot per
// NUL-terminated run of the section, numbered by counting the NULs before
// the offset (a bitmap with per-word counts, 1/6 of the section's size),
// which also keeps the slots of one unit's names close together. A slot
// remembers the offset it was filled for, since a run may start several
// strings (the linker stores "bar" as the tail of "foo_bar"): a lookup at
// another offset of the run misses, and the caller falls back to a map.
type strSection struct {
	base, size uintptr
	nul        []uint64  // bit i: section byte i is NUL
	rank       []uint32  // NULs before word i of nul
	slots      []strSlot // per run
}

// strSlot is one run's cached value: val (0: empty) for the string at off.
type strSlot struct {
	off, val uint32
}

// newStrSection indexes sec, which must stay mapped while the cache is used.
func newStrSection(sec []byte) strSection {
	s := strSection{base: uintptr(unsafe.Pointer(unsafe.SliceData(sec))), size: uintptr(len(sec)),
		nul: make([]uint64, (len(sec)+63)/64)}
	runs := 1 // the last run may lack its NUL
	for i := 0; ; {
		j := bytes.IndexByte(sec[i:], 0)
		if j < 0 {
			break
		}
		i += j
		s.nul[i/64] |= 1 << (i % 64)
		runs++
		i++
	}
	s.rank = make([]uint32, len(s.nul))
	n := uint32(0)
	for i, w := range s.nul {
		s.rank[i] = n
		n += uint32(bits.OnesCount64(w))
	}
	s.slots = make([]strSlot, runs)
	return s
}

// offset returns the offset in the section of the string starting at p,
// and false if p is outside the section.
func (s *strSection) offset(p uintptr) (uint32, bool) {
	off := p - s.base
	return uint32(off), off < s.size
}

// run returns the number of the run holding offset off.
func (s *strSection) run(off uint32) uint32 {
	w := off / 64
	return s.rank[w] + uint32(bits.OnesCount64(s.nul[w]&(1<<(off%64)-1)))
}
