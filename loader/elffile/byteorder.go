package elffile

import "encoding/binary"

// endian reads and writes fixed-size integers in the file's byte order. It
// is a concrete type rather than a binary.ByteOrder so that the calls inline
// in the symbol and relocation loops.
type endian struct{ big bool }

func (e endian) u16(b []byte) uint16 {
	if e.big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (e endian) u32(b []byte) uint32 {
	if e.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (e endian) u64(b []byte) uint64 {
	if e.big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// uint reads an unsigned integer of 1, 2, 4 or 8 bytes.
func (e endian) uint(b []byte, width int) uint64 {
	switch width {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(e.u16(b))
	case 4:
		return uint64(e.u32(b))
	}
	return e.u64(b)
}

// putUint writes the low width bytes (1, 2, 4 or 8) of v.
func (e endian) putUint(b []byte, width int, v uint64) {
	switch width {
	case 1:
		b[0] = byte(v)
	case 2:
		if e.big {
			binary.BigEndian.PutUint16(b, uint16(v))
		} else {
			binary.LittleEndian.PutUint16(b, uint16(v))
		}
	case 4:
		if e.big {
			binary.BigEndian.PutUint32(b, uint32(v))
		} else {
			binary.LittleEndian.PutUint32(b, uint32(v))
		}
	default:
		if e.big {
			binary.BigEndian.PutUint64(b, v)
		} else {
			binary.LittleEndian.PutUint64(b, v)
		}
	}
}
