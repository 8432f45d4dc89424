package btf

import (
	"bytes"
	"errors"
	"fmt"
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

	// index maps each string to the offset of its first occurrence. It is
	// built lazily for parsed tables (indexed reports whether it is).
	index   map[string]uint32
	indexed bool
	// deduped reports that every own string occurs once and was placed by
	// Add; libbpf's dedup leaves such tables alone (strs_deduped).
	deduped bool
	err     error
}

// NewStrings returns an empty string table holding only "" at offset 0.
func NewStrings() *Strings {
	return &Strings{
		data:    []byte{0},
		index:   map[string]uint32{"": 0},
		indexed: true,
		deduped: true,
	}
}

// NewSplitStrings returns an empty string table for split BTF on base: its
// first own string gets offset base.Size().
func NewSplitStrings(base *Strings) *Strings {
	return &Strings{
		base:    base,
		start:   uint32(base.Size()),
		index:   map[string]uint32{},
		indexed: true,
		deduped: true,
	}
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
		s.buildIndex()
	}
	if off, ok := s.index[str]; ok {
		return off
	}
	off := s.start + uint32(len(s.data))
	if uint64(off)+uint64(len(str)) >= maxStrOffset || len(str) >= maxStrOffset {
		if s.err == nil {
			s.err = fmt.Errorf("btf: string table exceeds %d bytes adding %.40q", maxStrOffset, str)
		}
		return 0
	}
	pos := len(s.data)
	s.data = append(s.data, str...)
	s.data = append(s.data, 0)
	// The key aliases the table's bytes: they are never modified, and an old
	// backing array stays alive for as long as keys refer to it.
	s.index[unsafe.String(&s.data[pos], len(str))] = off
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
		s.buildIndex()
	}
	off, ok := s.index[str]
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

// buildIndex indexes a parsed table; the first occurrence of a string wins.
func (s *Strings) buildIndex() {
	s.index = make(map[string]uint32)
	s.forEach(func(off uint32, str string) {
		if _, ok := s.index[str]; !ok {
			s.index[str] = off
		}
	})
	if s.base == nil {
		s.index[""] = 0
	}
	s.indexed = true
}

// errNoNUL is returned by parseStrings for a section that does not end in NUL.
var errNoNUL = errors.New("string section does not end with NUL")

// parseStrings wraps a copy of a raw string section. start is the offset of
// its first byte (the base's size for split BTF).
func parseStrings(sec []byte, base *Strings) (*Strings, error) {
	s := &Strings{base: base}
	if base != nil {
		s.start = uint32(base.Size())
	}
	if len(sec) == 0 {
		if base == nil {
			return nil, errors.New("empty string section")
		}
		s.index = map[string]uint32{}
		s.indexed = true
		s.deduped = true // libbpf: an empty section is trivially deduplicated
		return s, nil
	}
	if len(sec)-1 > maxStrOffset {
		return nil, fmt.Errorf("string section of %d bytes is too large", len(sec))
	}
	if sec[len(sec)-1] != 0 {
		return nil, errNoNUL
	}
	if base == nil && sec[0] != 0 {
		return nil, errors.New("string section does not start with NUL (split BTF without its base?)")
	}
	s.data = bytes.Clone(sec)
	if base == nil && len(sec) == 1 {
		s.index = map[string]uint32{"": 0}
		s.indexed = true
		s.deduped = true
	}
	return s, nil
}
