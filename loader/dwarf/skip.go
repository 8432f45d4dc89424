package dwarf

import (
	"bytes"
	"fmt"
)

// SkipChildren skips the children of the DIE that Next returned last, if
// it has any, so that Next returns its next sibling. It uses DW_AT_sibling
// when present and plausible.
func (r *Reader) SkipChildren() {
	if r.err != nil || !r.lastChildren {
		return
	}
	r.lastChildren = false
	if s := r.lastSibling; s != 0 && s >= uint64(r.pos) && s <= uint64(len(r.info)) {
		r.pos = int(s)
		return
	}
	info := r.info
	pos := r.pos
	for depth := 1; depth > 0; {
		if pos >= len(info) {
			// Some producers omit the final null entries of a unit.
			break
		}
		at := pos
		var code uint64
		if c := info[pos]; c < 0x80 {
			code = uint64(c)
			pos++
		} else if code, pos = uleb(info, pos); pos < 0 {
			r.fail(uint64(at), errLEB)
			return
		}
		if code == 0 {
			depth--
			continue
		}
		ab := r.tab.lookup(code)
		if ab == nil {
			r.fail(uint64(at), fmt.Errorf("abbreviation code %d not defined", code))
			return
		}
		if fs := int(ab.fixedSize); fs >= 0 {
			if fs > len(info)-pos {
				r.truncated(at, "DIE")
				return
			}
			pos += fs
		} else {
			for i := range ab.specs {
				s := &ab.specs[i]
				if pos = r.skip(s.kind, int(s.size), pos); pos < 0 {
					return
				}
			}
		}
		if ab.children {
			depth++
		}
	}
	r.pos = pos
}

// skip returns the position after a value of the given kind at pos, or -1
// on error.
func (r *Reader) skip(kind uint8, size int, pos int) int {
	info := r.info
	if size >= 0 {
		if size > len(info)-pos {
			r.truncated(pos, "attribute value")
			return -1
		}
		return pos + size
	}
	switch kind {
	case kUdata, kRefUdata, kAddrx, kStrx, kLoclistx, kRnglistx, kSdata:
		for i := pos; i < len(info) && i < pos+maxLEB; i++ {
			if info[i] < 0x80 {
				return i + 1
			}
		}
		r.fail(uint64(pos), errLEB)
		return -1
	case kString:
		i := bytes.IndexByte(info[pos:], 0)
		if i < 0 {
			r.truncated(pos, "DW_FORM_string")
			return -1
		}
		return pos + i + 1
	case kBlock1, kBlock2, kBlock4, kBlock, kExprloc, kIndirect:
		// Rare in the skip path: decode into a scratch field.
		var f Field
		return r.value(&f, kind, size, 0, pos)
	}
	r.fail(uint64(pos), fmt.Errorf("unknown form kind %d", kind))
	return -1
}
