package btfdiff

import (
	"errors"
	"fmt"
	"strings"
)

// strtab is a BTF string section. A split BTF's offsets continue after its
// base's: offsets below baseLen are looked up in base.
type strtab struct {
	base    *strtab
	baseLen uint32
	data    string
}

// newStrtab checks a string section as libbpf does: a base BTF's section is
// non-empty and starts with the empty string; a non-empty section ends with
// a NUL, so every in-range offset names a terminated string.
func newStrtab(data []byte, base *strtab) (*strtab, error) {
	st := &strtab{base: base, data: string(data)}
	if base != nil {
		st.baseLen = base.size()
		if len(data) == 0 {
			return st, nil
		}
	} else if len(data) == 0 || data[0] != 0 {
		return nil, errors.New("string section of a base BTF must start with an empty string")
	}
	if data[len(data)-1] != 0 {
		return nil, errors.New("string section does not end with a NUL byte")
	}
	if uint64(st.baseLen)+uint64(len(data)) > 1<<32-1 {
		return nil, fmt.Errorf("string sections of %d bytes exceed 32-bit offsets", uint64(st.baseLen)+uint64(len(data)))
	}
	return st, nil
}

// size is the size of the whole offset space: base plus this section.
func (s *strtab) size() uint32 { return s.baseLen + uint32(len(s.data)) }

// valid reports whether off names a string.
func (s *strtab) valid(off uint32) bool { return off < s.size() }

// lookup returns the string at off; an offset that valid rejects gives "".
func (s *strtab) lookup(off uint32) string {
	if off < s.baseLen {
		return s.base.lookup(off)
	}
	off -= s.baseLen
	if off >= uint32(len(s.data)) {
		return ""
	}
	rest := s.data[off:]
	if i := strings.IndexByte(rest, 0); i >= 0 {
		return rest[:i]
	}
	return rest
}
