package btf

import (
	"bytes"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// strSection is the splicer's cache of one DWARF string section
// (.debug_str, .debug_line_str): the offset in the output's string table
// of each name found there, keyed by where the name starts, which is
// cheaper than by content.
//
// A value per byte of the section would be simplest, but costs 4 bytes
// per byte of the string section. Here the cache holds a slot
// per NUL-terminated run of the section, numbered by counting the NULs
// before the offset (a bitmap with per-word counts, 1/6 of the section's
// size). A slot remembers the offset it was filled for, since a run may
// start several strings (the linker stores "bar" as the tail of
// "foo_bar"): a lookup at another offset of the run misses and goes by
// content. (The converters intern a unit's names in a table of their own.)
//
// A slot is written once, by the splicer, and read by the decode workers
// too (NameHints): it is one word, read and written atomically.
type strSection struct {
	*strRuns
	slots []atomic.Uint64 // per run: strSlot packed
}

// strRuns numbers the NUL-terminated runs of one section.
type strRuns struct {
	StrSpan
	nul  []uint64 // bit i: section byte i is NUL
	rank []uint32 // NULs before word i of nul
	runs int
}

// StrSpan is where one string section lies in memory.
type StrSpan struct {
	base, size uintptr
}

// strSlot is one run's cached value, packed in a word: off << 32 | val,
// val (0: empty) the destination offset + 1 of the string at offset off.
type strSlot uint64

func packSlot(off, val uint32) strSlot { return strSlot(uint64(off)<<32 | uint64(val)) }

// off returns the section offset the slot was filled for.
func (v strSlot) off() uint32 { return uint32(v >> 32) }

// val returns the destination offset + 1, 0 for an empty slot.
func (v strSlot) val() uint32 { return uint32(v) }

// StringSections are the DWARF string sections (.debug_str,
// .debug_line_str) that names given to a Converter or Splicer may point
// into: build it once per input and share it. It is read-only, and the
// sections must stay mapped while it is used.
type StringSections struct {
	data   [][]byte
	bounds []StrSpan
}

// IndexStringSections records secs (empty ones are skipped). It only notes
// where they lie: the splicer's cache indexes them (caches), on its own
// goroutine while the first units are walked.
func IndexStringSections(secs ...[]byte) *StringSections {
	x := &StringSections{}
	for _, sec := range secs {
		if len(sec) > 0 {
			x.data = append(x.data, sec)
			x.bounds = append(x.bounds, StrSpan{uintptr(unsafe.Pointer(unsafe.SliceData(sec))), uintptr(len(sec))})
		}
	}
	return x
}

// Spans returns where the sections lie, in the order given (none for a nil
// x). A converter keys the names it finds there by section and offset.
func (x *StringSections) Spans() []StrSpan {
	if x == nil {
		return nil
	}
	return x.bounds
}

// caches returns an empty cache per section (none for a nil x).
func (x *StringSections) caches() []strSection {
	if x == nil {
		return nil
	}
	c := make([]strSection, len(x.data))
	for i, sec := range x.data {
		r := newStrRuns(sec)
		c[i] = strSection{strRuns: r, slots: make([]atomic.Uint64, r.runs)}
		// Written before the splicer reads it (a fresh page read first
		// maps the zero page, and the write after it faults again and
		// flushes the TLB of every CPU running the process); a module's
		// names are spread over its string section, so its pages are
		// written anyway.
		clear(c[i].slots)
	}
	return c
}

// newStrRuns indexes sec.
func newStrRuns(sec []byte) *strRuns {
	s := &strRuns{StrSpan: StrSpan{uintptr(unsafe.Pointer(unsafe.SliceData(sec))), uintptr(len(sec))},
		nul: make([]uint64, (len(sec)+63)/64)}
	runs := 1 // the last run may lack its NUL
	// Each word of nul is written once, not read first (see caches).
	word, w := 0, uint64(0)
	for i := 0; ; {
		j := bytes.IndexByte(sec[i:], 0)
		if j < 0 {
			break
		}
		i += j
		if i/64 != word {
			s.nul[word], word, w = w, i/64, 0
		}
		w |= 1 << (i % 64)
		runs++
		i++
	}
	if len(s.nul) > 0 {
		s.nul[word] = w
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

// Offset returns the offset in the section of the string starting at p,
// and false if p is outside the section.
func (s *StrSpan) Offset(p uintptr) (uint32, bool) {
	off := p - s.base
	return uint32(off), off < s.size
}

// run returns the number of the run holding offset off.
func (s *strRuns) run(off uint32) uint32 {
	w := off / 64
	return s.rank[w] + uint32(bits.OnesCount64(s.nul[w]&(1<<(off%64)-1)))
}
