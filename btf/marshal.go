package btf

import (
	"encoding/binary"
	"fmt"
)

// Raw BTF header constants (struct btf_header).
const (
	magic      = 0xeb9f
	version    = 1
	hdrLen     = 32 // with layout_off/layout_len, as current libbpf writes it
	hdrLenV1   = 24 // older libbpf and kernels: no layout fields
	maxSection = 1<<32 - 1
)

// Marshal encodes t as raw BTF in byte order order: the 32-byte header
// current libbpf writes (magic 0xeb9f, version 1, flags 0, hdr_len 32, the
// type section at offset 0, the string section right after it, layout_off and
// layout_len 0), the types, then the strings. Split BTF holds only its own
// types and its own string section.
func (t *Types) Marshal(order binary.ByteOrder) ([]byte, error) {
	if err := t.checkRefs(); err != nil {
		return nil, err
	}
	if t.Base != nil && t.Strings.base != t.Base.Strings {
		return nil, fmt.Errorf("btf: split types' string table is not split on the base's table")
	}
	typeLen := uint64(len(t.words)) * 4
	strLen := uint64(len(t.Strings.data))
	if typeLen+strLen > maxSection {
		return nil, fmt.Errorf("btf: %d bytes of types and %d of strings exceed 4 GiB", typeLen, strLen)
	}
	buf := make([]byte, hdrLen+typeLen+strLen)
	order.PutUint16(buf[0:], magic)
	buf[2] = version
	buf[3] = 0
	order.PutUint32(buf[4:], hdrLen)
	order.PutUint32(buf[8:], 0)                // type_off
	order.PutUint32(buf[12:], uint32(typeLen)) // type_len
	order.PutUint32(buf[16:], uint32(typeLen)) // str_off
	order.PutUint32(buf[20:], uint32(strLen))  // str_len
	// layout_off, layout_len: 0
	p := buf[hdrLen:]
	switch order {
	case binary.LittleEndian:
		for i, w := range t.words {
			binary.LittleEndian.PutUint32(p[4*i:], w)
		}
	case binary.BigEndian:
		for i, w := range t.words {
			binary.BigEndian.PutUint32(p[4*i:], w)
		}
	default:
		for i, w := range t.words {
			order.PutUint32(p[4*i:], w)
		}
	}
	copy(p[typeLen:], t.Strings.data)
	return buf, nil
}
