package dwarf

import (
	"bytes"
	"errors"
	"fmt"
)

// value decodes one attribute value of the given kind at pos into f and
// returns the position after it, or -1 on error.
func (r *Reader) value(f *Field, kind uint8, size int, implicit int64, pos int) int {
	info := r.info
	f.Signed = false
	f.Bytes = nil
	if size > 0 && kind != kData16 {
		// Fixed-size integer.
		if size > len(info)-pos {
			r.truncated(pos, "attribute value")
			return -1
		}
		var v uint64
		switch size {
		case 1:
			v = uint64(info[pos])
		case 2:
			v = uint64(get16(info[pos:], r.le))
		case 4:
			v = uint64(get32(info[pos:], r.le))
		case 8:
			v = get64(info[pos:], r.le)
		default:
			v = uint64(get24(info[pos:], r.le))
		}
		at := pos
		pos += size
		switch kind {
		case kRef1, kRef2, kRef4, kRef8:
			f.Val = v + r.unitOff
		case kFlag:
			f.Val = 0
			if v != 0 {
				f.Val = 1
			}
		case kStrp:
			f.Val = v
			if f.Bytes = r.strp(v, at); f.Bytes == nil {
				return -1
			}
		case kLineStrp:
			f.Val = v
			if f.Bytes = r.cstring(r.lineStr, ".debug_line_str", v, at); f.Bytes == nil {
				return -1
			}
		case kStrx1, kStrx2, kStrx3, kStrx4:
			return r.strx(f, v, at, pos)
		case kAddrx1, kAddrx2, kAddrx3, kAddrx4:
			return r.addrx(f, v, at, pos)
		case kRefAddr:
			f.Val = v + r.refAddrAdd
		case kRefAlt:
			if !r.altRef(f, v, at) {
				return -1
			}
		case kStrAlt:
			if !r.altStr(f, v, at) {
				return -1
			}
		default: // addr, data, ref_sig8, sec_offset
			f.Val = v
		}
		return pos
	}
	switch kind {
	case kUdata, kRefUdata, kAddrx, kStrx, kLoclistx, kRnglistx:
		at := pos
		var v uint64
		if pos < len(info) && info[pos] < 0x80 {
			v = uint64(info[pos])
			pos++
		} else if v, pos = uleb(info, pos); pos < 0 {
			r.fail(uint64(at), errLEB)
			return -1
		}
		switch kind {
		case kUdata:
			f.Val = v
		case kRefUdata:
			f.Val = v + r.unitOff
		case kAddrx:
			return r.addrx(f, v, at, pos)
		case kStrx:
			return r.strx(f, v, at, pos)
		case kLoclistx:
			return r.listx(f, v, at, pos, r.secs.locLists, ".debug_loclists", r.locBase)
		default:
			return r.listx(f, v, at, pos, r.secs.rngLists, ".debug_rnglists", r.rngBase)
		}
		return pos
	case kSdata:
		v, n := sleb(info, pos)
		if n < 0 {
			r.fail(uint64(pos), errLEB)
			return -1
		}
		f.Val, f.Signed = uint64(v), true
		return n
	case kImplicitConst:
		f.Val, f.Signed = uint64(implicit), true
		return pos
	case kFlagPresent:
		f.Val = 1
		return pos
	case kString:
		i := bytes.IndexByte(info[pos:], 0)
		if i < 0 {
			r.truncated(pos, "DW_FORM_string")
			return -1
		}
		f.Val, f.Bytes = 0, info[pos:pos+i:pos+i]
		return pos + i + 1
	case kBlock1, kBlock2, kBlock4, kBlock, kExprloc, kData16:
		at := pos
		var n uint64
		switch kind {
		case kData16:
			n = 16
		case kBlock1:
			if pos >= len(info) {
				r.truncated(at, "block length")
				return -1
			}
			n = uint64(info[pos])
			pos++
		case kBlock2:
			if 2 > len(info)-pos {
				r.truncated(at, "block length")
				return -1
			}
			n = uint64(get16(info[pos:], r.le))
			pos += 2
		case kBlock4:
			if 4 > len(info)-pos {
				r.truncated(at, "block length")
				return -1
			}
			n = uint64(get32(info[pos:], r.le))
			pos += 4
		default:
			if n, pos = uleb(info, pos); pos < 0 {
				r.fail(uint64(at), errLEB)
				return -1
			}
		}
		if n > uint64(len(info)-pos) {
			r.truncated(at, fmt.Sprintf("block of %d bytes", n))
			return -1
		}
		end := pos + int(n)
		f.Bytes = info[pos:end:end]
		f.Val = n
		return end
	case kIndirect:
		at := pos
		form, n := uleb(info, pos)
		if n < 0 {
			r.fail(uint64(at), errLEB)
			return -1
		}
		if form > 0xffff || Form(form) == FormIndirect {
			r.fail(uint64(at), fmt.Errorf("bad DW_FORM_indirect form 0x%x", form))
			return -1
		}
		f.Form = Form(form)
		f.Class = formClass(f.Attr, f.Form, r.version)
		k, sz := formKind(f.Form, r.version, r.addrSize, r.offSize)
		if k == kImplicitConst {
			r.fail(uint64(at), errors.New("DW_FORM_implicit_const through DW_FORM_indirect"))
			return -1
		}
		return r.value(f, k, sz, 0, n)
	}
	r.fail(uint64(pos), fmt.Errorf("unknown form 0x%x (%v)", uint16(f.Form), f.Form))
	return -1
}

// cstring returns the NUL-terminated string at off in sec, or nil after
// recording an error (at is the attribute's offset).
func (r *Reader) cstring(sec []byte, name string, off uint64, at int) []byte {
	if off >= uint64(len(sec)) {
		r.fail(uint64(at), fmt.Errorf("string offset 0x%x past the end of %s (size 0x%x)", off, name, len(sec)))
		return nil
	}
	s := sec[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		r.fail(uint64(at), fmt.Errorf("%w: unterminated string at %s+0x%x", ErrTruncated, name, off))
		return nil
	}
	return s[:i:i]
}

// strp returns the .debug_str string at off, or nil after recording an
// error.
func (r *Reader) strp(off uint64, at int) []byte {
	n, ok := strLen(r.nul, off)
	if !ok || off >= uint64(len(r.str)) {
		return r.cstring(r.str, ".debug_str", off, at) // reports the error
	}
	return r.str[off : off+uint64(n) : off+uint64(n)]
}

// indexed reads the idx-th size-byte entry of sec after base; ok is false
// when it is out of range.
func indexed(sec []byte, base, idx uint64, size int, le bool) (uint64, bool) {
	n := uint64(len(sec))
	if base > n || idx >= (n-base)/uint64(size) {
		return 0, false
	}
	p := base + idx*uint64(size)
	return getN(sec[p:], size, le), true
}

// strx resolves a string index through .debug_str_offsets.
func (r *Reader) strx(f *Field, idx uint64, at, pos int) int {
	f.Val = idx
	if r.raw {
		return pos
	}
	off, ok := indexed(r.secs.strOffsets, r.strOffBase, idx, r.offSize, r.le)
	if !ok {
		r.fail(uint64(at), fmt.Errorf("string index %d out of range of .debug_str_offsets (base 0x%x, size 0x%x)", idx, r.strOffBase, len(r.secs.strOffsets)))
		return -1
	}
	f.Val = off
	if f.Bytes = r.strp(off, at); f.Bytes == nil {
		return -1
	}
	return pos
}

// addrx resolves an address index through .debug_addr.
func (r *Reader) addrx(f *Field, idx uint64, at, pos int) int {
	f.Val = idx
	if r.raw {
		return pos
	}
	v, ok := indexed(r.secs.addr, r.addrBase, idx, r.addrSize, r.le)
	if !ok {
		r.fail(uint64(at), fmt.Errorf("address index %d out of range of .debug_addr (base 0x%x, size 0x%x)", idx, r.addrBase, len(r.secs.addr)))
		return -1
	}
	f.Val = v
	return pos
}

// listx resolves a loclistx or rnglistx index through the offset array at
// base in sec to a section offset.
func (r *Reader) listx(f *Field, idx uint64, at, pos int, sec []byte, name string, base uint64) int {
	f.Val = idx
	if r.raw {
		return pos
	}
	v, ok := indexed(sec, base, idx, r.offSize, r.le)
	if !ok || v > uint64(len(sec))-min(base, uint64(len(sec))) {
		r.fail(uint64(at), fmt.Errorf("list index %d out of range of %s (base 0x%x, size 0x%x)", idx, name, base, len(sec)))
		return -1
	}
	f.Val = base + v
	return pos
}
