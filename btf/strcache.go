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
	*strRuns
	slots []strSlot // per run
}

// strRuns numbers the NUL-terminated runs of one section. It is read-only
// once built, so the caches of all goroutines share it.
type strRuns struct {
	base, size uintptr
	nul        []uint64 // bit i: section byte i is NUL
	rank       []uint32 // NULs before word i of nul
	runs       int
}

// strSlot is one run's cached value: val (0: empty) for the string at off.
type strSlot struct {
	off, val uint32
}

// StringSections indexes the DWARF string sections (.debug_str,
// .debug_line_str) that names given to a Converter or Splicer may point
// into, for their caches: build it once per input and share it. It is
// read-only, and the sections must stay mapped while it is used.
type StringSections struct {
	secs []*strRuns
}

// IndexStringSections indexes secs (empty ones are skipped).
func IndexStringSections(secs ...[]byte) *StringSections {
	x := &StringSections{}
	for _, sec := range secs {
		if len(sec) > 0 {
			x.secs = append(x.secs, newStrRuns(sec))
		}
	}
	return x
}

// runs returns the sections' run indexes (none for a nil x).
func (x *StringSections) runs() []*strRuns {
	if x == nil {
		return nil
	}
	return x.secs
}

// caches returns an empty cache per section (none for a nil x).
func (x *StringSections) caches() []strSection {
	if x == nil {
		return nil
	}
	c := make([]strSection, len(x.secs))
	for i, r := range x.secs {
		c[i] = strSection{strRuns: r, slots: make([]strSlot, r.runs)}
	}
	return c
}

// newStrRuns indexes sec.
func newStrRuns(sec []byte) *strRuns {
	s := &strRuns{base: uintptr(unsafe.Pointer(unsafe.SliceData(sec))), size: uintptr(len(sec)),
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
	s.runs = runs
	return s
}

// offset returns the offset in the section of the string starting at p,
// and false if p is outside the section.
func (s *strRuns) offset(p uintptr) (uint32, bool) {
	off := p - s.base
	return uint32(off), off < s.size
}

// run returns the number of the run holding offset off.
func (s *strRuns) run(off uint32) uint32 {
	w := off / 64
	return s.rank[w] + uint32(bits.OnesCount64(s.nul[w]&(1<<(off%64)-1)))
}
