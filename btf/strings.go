package btf

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"unsafe"
)

// maxStrOffset is the largest string offset libbpf accepts (BTF_MAX_STR_OFFSET).
const maxStrOffset = 0x7fffffff

// Strings is a BTF string section: NUL-terminated strings addressed by byte
// offset, offset 0 being "". A table made with NewStrings or NewSplitStrings
// and grown only with Add holds every string once, in the order of the first
// Add of each, which is how libbpf (and so pahole) lays out its strings.
//
// Add copies the string's bytes into the table, so callers may pass strings
// that alias memory they reuse or unmap later (e.g. zero-copy views of a
// mapped DWARF section). Strings returned by String alias the table's own,
// never-modified bytes and stay valid for as long as they are referenced.
//
// The table of split BTF has a base: offsets below the base's Size address
// the base, the table's own strings follow, and Add returns the base's offset
// for a string the base already holds.
//
// A Strings is not safe for concurrent use.
type Strings struct {
	base  *Strings
	start uint32 // offset of data[0]: 0, or base.Size() for split tables
	data  []byte // own section bytes

	// index maps each own string to the offset of its first occurrence. It
	// is built lazily for parsed tables (indexed reports whether it is).
	index   strIndex
	indexed bool
	// deduped reports that every own string occurs once and was placed by
	// Add; libbpf's dedup leaves such tables alone (strs_deduped).
	deduped bool
	err     error
}

// NewStrings returns an empty string table holding only "" at offset 0.
func NewStrings() *Strings {
	return &Strings{data: []byte{0}, index: newStrIndex(), indexed: true, deduped: true}
}

// NewSplitStrings returns an empty string table for split BTF on base: its
// first own string gets offset base.Size().
func NewSplitStrings(base *Strings) *Strings {
	return &Strings{base: base, start: uint32(base.Size()), index: newStrIndex(), indexed: true, deduped: true}
}

// Base returns the base table of a split table, or nil.
func (s *Strings) Base() *Strings { return s.base }

// Size returns the offset the next own string would get: the base's size
// plus the length of the own section.
func (s *Strings) Size() int { return int(s.start) + len(s.data) }

// Len returns the number of bytes of the own section (what Marshal writes).
func (s *Strings) Len() int { return len(s.data) }

// Err returns the first error Add ran into (the table outgrew BTF's offsets).
func (s *Strings) Err() error { return s.err }

// Add returns the offset of str, appending it if the table (or its base)
// does not hold it yet. "" is always offset 0.
func (s *Strings) Add(str string) uint32 {
	if str == "" {
		return 0
	}
	if s.base != nil {
		if off, ok := s.base.Find(str); ok {
			return off
		}
	}
	if !s.indexed {
		s.BuildIndex()
	}
	h := s.index.hash(str)
	slot, off, ok := s.index.find(h, str, s)
	if ok {
		return off
	}
	off = s.start + uint32(len(s.data))
	if uint64(off)+uint64(len(str)) >= maxStrOffset || len(str) >= maxStrOffset {
		if s.err == nil {
			s.err = fmt.Errorf("btf: string table exceeds %d bytes adding %.40q", maxStrOffset, str)
		}
		return 0
	}
	s.data = append(s.data, str...)
	s.data = append(s.data, 0)
	s.index.insert(slot, h, off)
	return off
}

// Find returns the offset of the first occurrence of str, looking in the base
// first, without adding it.
func (s *Strings) Find(str string) (uint32, bool) {
	if str == "" {
		return 0, true
	}
	if s.base != nil {
		if off, ok := s.base.Find(str); ok {
			return off, true
		}
	}
	if !s.indexed {
		s.BuildIndex()
	}
	_, off, ok := s.index.find(s.index.hash(str), str, s)
	return off, ok
}

// String returns the string at off: the bytes from off up to the next NUL.
// An offset outside the table yields "".
func (s *Strings) String(off uint32) string {
	if off < s.start {
		if s.base == nil {
			return ""
		}
		return s.base.String(off)
	}
	rel := int(off - s.start)
	if rel >= len(s.data) {
		return ""
	}
	n := bytes.IndexByte(s.data[rel:], 0)
	if n <= 0 {
		return ""
	}
	return unsafe.String(&s.data[rel], n)
}

// valid reports whether off addresses a byte of the table (or its base) that
// is followed by a NUL, as libbpf's btf__str_by_offset requires.
func (s *Strings) valid(off uint32) bool {
	if off < s.start {
		return s.base != nil && s.base.valid(off)
	}
	return int(off-s.start) < len(s.data)
}

// forEach calls fn for each own string, in table order, with its offset.
func (s *Strings) forEach(fn func(off uint32, str string)) {
	d := s.data
	for i := 0; i < len(d); {
		n := bytes.IndexByte(d[i:], 0)
		if n < 0 {
			n = len(d) - i
		}
		fn(s.start+uint32(i), unsafe.String(unsafe.SliceData(d[i:]), n))
		i += n + 1
	}
}

// BuildIndex indexes a parsed table's strings now instead of at the first
// Add or Find (the first occurrence of a string wins). Lookups only read an
// indexed table, so several goroutines may Find in it (a base shared by
// encodes) once it is indexed. A table built by Add is always indexed.
func (s *Strings) BuildIndex() { s.buildIndex(false) }

// buildIndex is BuildIndex, with stableHash if stable is set.
func (s *Strings) buildIndex(stable bool) {
	if s.indexed {
		return
	}
	n := bytes.Count(s.data, []byte{0})
	if stable {
		// A stable index is a prepared base's, only read once built: it
		// is built at the size packed gives it, so packing copies nothing.
		s.index = strIndex{stable: true, slots: make([]uint64, packedSlots(n, 256))}
	} else {
		s.index = newStrIndexFor(n)
	}
	s.forEach(func(off uint32, str string) {
		h := s.index.hash(str)
		if slot, _, ok := s.index.find(h, str, s); !ok {
			if stable { // never full: n strings at most
				s.index.place(slot, h, off)
			} else {
				s.index.insert(slot, h, off)
			}
		}
	})
	s.indexed = true
}

// strIndex is an open-addressing hash index of a table's own strings: each
// slot holds the top 32 bits of a string's hash (the tag, which also picks
// the first slot to probe) and 1 + its offset (0: the slot is free). Strings
// are compared in the table's bytes, so the index holds no string headers.
type strIndex struct {
	seed   maphash.Seed
	stable bool // hashes with stableHash, not maphash (an index stored on disk)
	slots  []uint64
	n      int
}

func newStrIndex() strIndex { return newStrIndexFor(0) }

// newStrIndexFor returns an index with room for n strings before it grows.
func newStrIndexFor(n int) strIndex {
	slots := 256
	for slots <= 2*n { // insert keeps at most half of the slots used
		slots *= 2
	}
	return strIndex{seed: maphash.MakeSeed(), slots: make([]uint64, slots)}
}

func (x *strIndex) hash(str string) uint64 {
	if x.stable {
		return stableHash(str)
	}
	return maphash.String(x.seed, str)
}

// find looks str (of hash h) up in s's own strings: it returns its offset if
// present, else the free slot where it belongs. It probes each slot at most
// once, and reads a slot's offset only if the string fits in s's bytes: an
// index read from a prepared base's file may be damaged (every slot used,
// offsets outside the strings), and then a lookup misses. The slot of a
// miss on a full index is a used one; only a prepared base's index can be
// full, and it is only read, never given to insert.
func (x *strIndex) find(h uint64, str string, s *Strings) (slot int, off uint32, ok bool) {
	mask := len(x.slots) - 1
	tag := h >> 32
	i := int(tag) & mask
	for range len(x.slots) {
		e := x.slots[i]
		if e == 0 {
			return i, 0, false
		}
		if e>>32 == tag {
			off := uint32(e) - 1
			// rel + len(str) < len(s.data), without overflow on any int size.
			if rel := uint(off - s.start); rel < uint(len(s.data)) && uint(len(str)) < uint(len(s.data))-rel &&
				s.data[rel+uint(len(str))] == 0 && string(s.data[rel:rel+uint(len(str))]) == str {
				return i, off, true
			}
		}
		i = (i + 1) & mask
	}
	return i, 0, false
}

// insert records offset off of a string of hash h in the free slot slot,
// and grows the index if that leaves more than half of it used.
func (x *strIndex) insert(slot int, h uint64, off uint32) {
	x.place(slot, h, off)
	if 2*x.n > len(x.slots) {
		x.slots = reslot(x.slots, 2*len(x.slots))
	}
}

// place records offset off of a string of hash h in the free slot slot.
func (x *strIndex) place(slot int, h uint64, off uint32) {
	x.slots[slot] = h>>32<<32 | uint64(off+1)
	x.n++
}

// reslot returns the entries of slots in n new ones (a power of two).
func reslot(slots []uint64, n int) []uint64 {
	out := make([]uint64, n)
	mask := n - 1
	for _, e := range slots {
		if e == 0 {
			continue
		}
		i := int(e>>32) & mask // slots are chosen by the tag alone
		for out[i] != 0 {
			i = (i + 1) & mask
		}
		out[i] = e
	}
	return out
}

// packed returns x with the fewest slots (a power of two) that keep at
// most 4/5 of them used, for an index that is only read from then on: a
// prepared base's, stored in its file, where a module's few lookups each
// page in 64 KiB of the index around them (the kernel's fault-around), so
// that the half-empty index insert keeps would be twice the memory of
// every encode on the base. A lookup that misses probes longer (about 11
// slots at 4/5 against 2.5 at 1/2), all in one or two cache lines.
func (x *strIndex) packed() strIndex {
	p := *x
	if len(x.slots) == packedSlots(x.n, 256) {
		return p
	}
	p.slots = reslot(x.slots, packedSlots(x.n, 256))
	return p
}

// packedSlots is the fewest slots, a power of two and at least least, that
// hold n entries with at most 4/5 of them used: the size of a table that
// is only read from (strIndex.packed, candTable.packed).
func packedSlots(n, least int) int {
	slots := least
	for 4*slots < 5*n {
		slots *= 2
	}
	return slots
}

// parseStrings wraps a copy of a raw string section, or with alias the
// section itself. start is the offset of its first byte (the base's size
// for split BTF).
func parseStrings(sec []byte, base *Strings, alias bool) (*Strings, error) {
	s := &Strings{base: base}
	if base != nil {
		s.start = uint32(base.Size())
	}
	if len(sec) == 0 {
		if base == nil {
			return nil, errors.New("empty string section")
		}
		s.index = newStrIndex()
		s.indexed = true
		s.deduped = true // libbpf: an empty section is trivially deduplicated
		return s, nil
	}
	if len(sec)-1 > maxStrOffset {
		return nil, fmt.Errorf("string section of %d bytes is too large", len(sec))
	}
	if sec[len(sec)-1] != 0 {
		return nil, errors.New("string section does not end with NUL")
	}
	if base == nil && sec[0] != 0 {
		return nil, errors.New("string section does not start with NUL (split BTF without its base?)")
	}
	if alias {
		s.data = sec[:len(sec):len(sec)] // appending copies
	} else {
		s.data = bytes.Clone(sec)
	}
	if base == nil && len(sec) == 1 {
		s.index = newStrIndex()
		s.indexed = true
		s.deduped = true
	}
	return s, nil
}
