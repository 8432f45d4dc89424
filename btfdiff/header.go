package btfdiff

import (
	"encoding/binary"
	"errors"
	"fmt"
)

const (
	btfMagic = 0xeb9f
	// minHeaderLen is the size of struct btf_header without the layout
	// fields; layoutHeaderLen includes layout_off and layout_len, which
	// current libbpf always writes (zero unless the layout feature is on).
	minHeaderLen    = 24
	layoutHeaderLen = 32
)

// header is a decoded struct btf_header. Offsets are relative to the end
// of the header, as in the format.
type header struct {
	order     binary.ByteOrder
	hdrLen    uint32
	typeOff   uint32
	typeLen   uint32
	strOff    uint32
	strLen    uint32
	layoutOff uint32
	layoutLen uint32
}

// parseHeader decodes and checks the header of a BTF blob: magic (which
// gives the byte order), version, flags, and that every section lies
// inside the blob.
func parseHeader(data []byte) (header, error) {
	var h header
	if len(data) < minHeaderLen {
		return h, fmt.Errorf("%d bytes is too short for a BTF header", len(data))
	}
	switch {
	case binary.LittleEndian.Uint16(data) == btfMagic:
		h.order = binary.LittleEndian
	case binary.BigEndian.Uint16(data) == btfMagic:
		h.order = binary.BigEndian
	default:
		return h, fmt.Errorf("bad magic %#02x%02x (want 0xeb9f in either byte order)", data[0], data[1])
	}
	if v := data[2]; v != 1 {
		return h, fmt.Errorf("unsupported BTF version %d", v)
	}
	if f := data[3]; f != 0 {
		return h, fmt.Errorf("unsupported BTF header flags %#x", f)
	}
	o := h.order
	h.hdrLen = o.Uint32(data[4:])
	h.typeOff = o.Uint32(data[8:])
	h.typeLen = o.Uint32(data[12:])
	h.strOff = o.Uint32(data[16:])
	h.strLen = o.Uint32(data[20:])
	if h.hdrLen < minHeaderLen {
		return h, fmt.Errorf("header length %d is below the minimum %d", h.hdrLen, minHeaderLen)
	}
	if uint64(h.hdrLen) > uint64(len(data)) {
		return h, fmt.Errorf("header length %d exceeds the %d bytes present", h.hdrLen, len(data))
	}
	known := uint32(minHeaderLen)
	if h.hdrLen >= layoutHeaderLen {
		h.layoutOff = o.Uint32(data[24:])
		h.layoutLen = o.Uint32(data[28:])
		known = layoutHeaderLen
	}
	for _, b := range data[known:h.hdrLen] {
		if b != 0 {
			return h, errors.New("header has non-zero bytes past the fields this decoder knows")
		}
	}
	body := uint64(len(data)) - uint64(h.hdrLen)
	for _, s := range []struct {
		name     string
		off, len uint32
	}{{"type", h.typeOff, h.typeLen}, {"string", h.strOff, h.strLen}, {"layout", h.layoutOff, h.layoutLen}} {
		if uint64(s.off)+uint64(s.len) > body {
			return h, fmt.Errorf("%s section [%d, +%d) exceeds the %d bytes after the header", s.name, s.off, s.len, body)
		}
	}
	if h.typeOff%4 != 0 {
		return h, fmt.Errorf("type section offset %d is not 4-byte aligned", h.typeOff)
	}
	return h, nil
}
