// Package refbtf turns pahole's reference BTF into what the kernel accepts,
// for tests that compare btfgate's output with it: pahole 1.31's global_var
// writes DATASEC entries that overlap an entry before them, which the
// kernel refuses and btfgate leaves out. It works on the raw bytes, apart
// from package btf, so that it checks the encoder rather than repeats it.
package refbtf

import (
	"encoding/binary"
	"fmt"
)

// Entry is a DATASEC entry WithoutOverlaps left out.
type Entry struct {
	Section string // the DATASEC's name
	Var     string // the VAR's name
	Type    uint32 // the VAR's type id
	Offset  uint32
	Size    uint32
}

const (
	headerLen  = 24
	kindDatsec = 15
)

// WithoutOverlaps returns raw (one BTF, not split) with every DATASEC
// entry that starts before the end of an entry kept before it left out,
// and those entries. Entries are taken in the order they are written
// (pahole writes them sorted by offset); VARs, ids and strings are
// unchanged; a DATASEC's size is unchanged unless a kept entry ends past
// it. raw comes back as is when nothing overlaps.
func WithoutOverlaps(raw []byte) ([]byte, []Entry, error) {
	if len(raw) < headerLen {
		return nil, nil, fmt.Errorf("BTF of %d bytes, shorter than its header", len(raw))
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if binary.BigEndian.Uint16(raw) == 0xeb9f {
		bo = binary.BigEndian
	} else if bo.Uint16(raw) != 0xeb9f {
		return nil, nil, fmt.Errorf("not BTF: magic %#x", binary.LittleEndian.Uint16(raw))
	}
	hdr := uint64(bo.Uint32(raw[4:]))
	typeOff, typeLen := hdr+uint64(bo.Uint32(raw[8:])), uint64(bo.Uint32(raw[12:]))
	strOff, strLen := hdr+uint64(bo.Uint32(raw[16:])), uint64(bo.Uint32(raw[20:]))
	if hdr < headerLen || typeOff+typeLen > uint64(len(raw)) || strOff+strLen > uint64(len(raw)) || typeOff+typeLen > strOff {
		return nil, nil, fmt.Errorf("BTF header: types [%d,+%d), strings [%d,+%d) in %d bytes", typeOff, typeLen, strOff, strLen, len(raw))
	}
	types, strs := raw[typeOff:typeOff+typeLen], raw[strOff:strOff+strLen]
	str := func(off uint32) string {
		if uint64(off) >= uint64(len(strs)) {
			return fmt.Sprintf("(string %d)", off)
		}
		end := uint64(off)
		for end < uint64(len(strs)) && strs[end] != 0 {
			end++
		}
		return string(strs[off:end])
	}
	// The VAR names, by id, to name the entries left out.
	var names []uint32
	offs, err := walk(types, bo, func(kind int, at int) {
		names = append(names, bo.Uint32(types[at:]))
	})
	if err != nil {
		return nil, nil, err
	}
	var out []byte
	var dropped []Entry
	for i, at := range offs {
		next := len(types)
		if i+1 < len(offs) {
			next = offs[i+1]
		}
		info := bo.Uint32(types[at+4:])
		if int(info>>24&0x1f) != kindDatsec {
			out = append(out, types[at:next]...)
			continue
		}
		section := str(bo.Uint32(types[at:]))
		size := uint64(bo.Uint32(types[at+8:]))
		var kept []byte
		n, end := 0, uint64(0)
		for e := at + 12; e < next; e += 12 {
			id, off, sz := bo.Uint32(types[e:]), bo.Uint32(types[e+4:]), bo.Uint32(types[e+8:])
			if n > 0 && uint64(off) < end {
				name := fmt.Sprintf("(type %d)", id)
				if id >= 1 && int(id) <= len(names) {
					name = str(names[id-1])
				}
				dropped = append(dropped, Entry{Section: section, Var: name, Type: id, Offset: off, Size: sz})
				continue
			}
			kept = append(kept, types[e:e+12]...)
			n++
			end = max(end, uint64(off)+uint64(sz))
		}
		head := append([]byte(nil), types[at:at+12]...)
		bo.PutUint32(head[4:], info&^0xffff|uint32(n))
		bo.PutUint32(head[8:], uint32(max(size, end)))
		out = append(append(out, head...), kept...)
	}
	if len(dropped) == 0 {
		return raw, nil, nil
	}
	res := make([]byte, 0, len(raw))
	res = append(res, raw[:hdr]...)
	bo.PutUint32(res[8:], 0)
	bo.PutUint32(res[12:], uint32(len(out)))
	bo.PutUint32(res[16:], uint32(len(out)))
	res = append(append(res, out...), strs...)
	return res, dropped, nil
}

// walk returns the offset of each type in types and calls f with its kind
// and offset.
func walk(types []byte, bo binary.ByteOrder, f func(kind, at int)) ([]int, error) {
	var offs []int
	for at := 0; at < len(types); {
		if len(types)-at < 12 {
			return nil, fmt.Errorf("type %d at %d: truncated", len(offs)+1, at)
		}
		info := bo.Uint32(types[at+4:])
		kind, vlen := int(info>>24&0x1f), int(info&0xffff)
		var extra int
		switch kind {
		case 1, 14, 17: // INT, VAR, DECL_TAG
			extra = 4
		case 3: // ARRAY
			extra = 12
		case 4, 5, 15, 19: // STRUCT, UNION, DATASEC, ENUM64
			extra = 12 * vlen
		case 6, 13: // ENUM, FUNC_PROTO
			extra = 8 * vlen
		case 2, 7, 8, 9, 10, 11, 12, 16, 18:
		default:
			return nil, fmt.Errorf("type %d at %d: unknown kind %d", len(offs)+1, at, kind)
		}
		if len(types)-at < 12+extra {
			return nil, fmt.Errorf("type %d at %d: truncated", len(offs)+1, at)
		}
		f(kind, at)
		offs = append(offs, at)
		at += 12 + extra
	}
	return offs, nil
}
