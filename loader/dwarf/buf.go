package dwarf

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Fixed-size integer reads in the data's byte order. Callers check bounds.

func get16(b []byte, le bool) uint16 {
	if le {
		return binary.LittleEndian.Uint16(b)
	}
	return binary.BigEndian.Uint16(b)
}

func get24(b []byte, le bool) uint32 {
	_ = b[2]
	if le {
		return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	}
	return uint32(b[2]) | uint32(b[1])<<8 | uint32(b[0])<<16
}

func get32(b []byte, le bool) uint32 {
	if le {
		return binary.LittleEndian.Uint32(b)
	}
	return binary.BigEndian.Uint32(b)
}

func get64(b []byte, le bool) uint64 {
	if le {
		return binary.LittleEndian.Uint64(b)
	}
	return binary.BigEndian.Uint64(b)
}

// validSize reports whether n is an address or offset size the package
// reads: 1, 2, 4 or 8 bytes.
func validSize(n int) bool { return n == 1 || n == 2 || n == 4 || n == 8 }

// getN reads an n-byte unsigned integer, n in {1, 2, 3, 4, 8}.
func getN(b []byte, n int, le bool) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(get16(b, le))
	case 3:
		return uint64(get24(b, le))
	case 4:
		return uint64(get32(b, le))
	default:
		return get64(b, le)
	}
}

// maxLEB is the longest LEB128 encoding accepted (enough for 64 bits).
const maxLEB = 10

// uleb decodes an unsigned LEB128 number at b[pos:]. It returns the value
// and the position after it, or -1 as the position when the number is
// truncated or longer than maxLEB bytes.
func uleb(b []byte, pos int) (uint64, int) {
	var v uint64
	var shift uint
	for i := pos; i < len(b) && i < pos+maxLEB; i++ {
		c := b[i]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1
		}
		shift += 7
	}
	return 0, -1
}

// sleb decodes a signed LEB128 number like uleb.
func sleb(b []byte, pos int) (int64, int) {
	var v int64
	var shift uint
	for i := pos; i < len(b) && i < pos+maxLEB; i++ {
		c := b[i]
		v |= int64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, -1
}

// errLEB is the error for a bad LEB128 number.
var errLEB = fmt.Errorf("%w: bad LEB128 number", ErrTruncated)

// buf is a bounds-checked cursor over a section for the cold paths (unit
// headers, abbreviations, location lists). The first error sticks: later
// reads return zero values and do not move.
type buf struct {
	d       *Data
	section string
	unit    int
	data    []byte // the section, cut at the end of the readable range
	off     int
	le      bool
	err     error
}

// newBuf returns a cursor at off of data, a value: the location list
// decoders make one per list, and a pointer would be a heap allocation each.
func (d *Data) newBuf(section string, data []byte, off uint64, unit int) buf {
	b := buf{d: d, section: section, unit: unit, data: data, le: d.le}
	if off > uint64(len(data)) {
		b.fail(off, fmt.Errorf("%w: offset 0x%x past the end of %s (size 0x%x)", ErrTruncated, off, section, len(data)))
		return b
	}
	b.off = int(off)
	return b
}

// fail records the first error, at section offset off.
func (b *buf) fail(off uint64, err error) {
	if b.err == nil {
		b.err = b.d.decodeError(b.section, off, b.unit, err)
	}
}

// need reports whether n more bytes are available, failing if not.
func (b *buf) need(n uint64) bool {
	if b.err != nil {
		return false
	}
	if n > uint64(len(b.data)-b.off) {
		b.fail(uint64(b.off), fmt.Errorf("%w: need %d bytes, have %d", ErrTruncated, n, len(b.data)-b.off))
		return false
	}
	return true
}

func (b *buf) u8() uint8 {
	if !b.need(1) {
		return 0
	}
	v := b.data[b.off]
	b.off++
	return v
}

// sized reads an n-byte unsigned integer, n in {1, 2, 3, 4, 8}.
func (b *buf) sized(n int) uint64 {
	if !b.need(uint64(n)) {
		return 0
	}
	v := getN(b.data[b.off:], n, b.le)
	b.off += n
	return v
}

func (b *buf) u16() uint16 { return uint16(b.sized(2)) }
func (b *buf) u32() uint32 { return uint32(b.sized(4)) }
func (b *buf) u64() uint64 { return b.sized(8) }

// offset reads a section offset of the unit's format.
func (b *buf) offset(format64 bool) uint64 {
	if format64 {
		return b.sized(8)
	}
	return b.sized(4)
}

func (b *buf) uleb() uint64 {
	if b.err != nil {
		return 0
	}
	v, n := uleb(b.data, b.off)
	if n < 0 {
		b.fail(uint64(b.off), errLEB)
		return 0
	}
	b.off = n
	return v
}

func (b *buf) sleb() int64 {
	if b.err != nil {
		return 0
	}
	v, n := sleb(b.data, b.off)
	if n < 0 {
		b.fail(uint64(b.off), errLEB)
		return 0
	}
	b.off = n
	return v
}

// bytes returns the next n bytes as a capacity-limited sub-slice.
func (b *buf) bytes(n uint64) []byte {
	if !b.need(n) {
		return nil
	}
	s := b.data[b.off : b.off+int(n) : b.off+int(n)]
	b.off += int(n)
	return s
}

// errNoSection is returned when a form or list needs a section the caller
// did not provide.
var errNoSection = errors.New("section missing")
