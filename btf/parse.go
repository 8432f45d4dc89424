package btf

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// ParseError reports malformed raw BTF: the byte offset in the input where
// the problem is, the type being decoded (0 if none) and what is wrong.
type ParseError struct {
	Offset int
	Type   TypeID
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Type != 0 {
		return fmt.Sprintf("btf: offset %#x: type %d: %s", e.Offset, e.Type, e.Msg)
	}
	return fmt.Sprintf("btf: offset %#x: %s", e.Offset, e.Msg)
}

// header is a decoded struct btf_header.
type header struct {
	order                       binary.ByteOrder
	hdrLen                      uint32
	typeOff, typeLen            uint32
	strOff, strLen              uint32
	layoutOff, layoutLen        uint32
	typeStart, strStart, strEnd int // absolute byte offsets in the input
}

// Parse decodes raw BTF (a .BTF section or a detached file) in either byte
// order, with a 24- or 32-byte header. base is nil, or the base that split
// BTF (a module's) was built on. The result does not alias data.
//
// Parse checks what libbpf's loader checks and a little more: header (magic,
// version, zero flags) and section bounds, known kinds, reserved bits of the
// info word (zero, as the kernel requires), each type's size against its
// vlen, string offsets, referenced type ids, FUNC referring to a FUNC_PROTO,
// FWD with a zero type word. An optional layout section is checked for
// placement and otherwise ignored. Errors are *ParseError naming the offset
// and, past the header, the type id.
func Parse(data []byte, base *Types) (*Types, error) { return parse(data, base, false, false) }

// ParseLenient is Parse for BTF that is to be described rather than built
// on (btfdiff reads both sides of a diff with it). It checks all that the
// layout of the data depends on as Parse does: header, sections, known
// kinds, each type's size against its vlen, string offsets and type ids, so
// that every accessor of the result reads inside it. It accepts what the
// kernel refuses on meaning only: reserved bits of the info word (bits
// 16-23 and 29-30; Type.Info keeps them), a FUNC referring to something
// other than a FUNC_PROTO, a FWD with a non-zero type word.
func ParseLenient(data []byte, base *Types) (*Types, error) { return parse(data, base, true, false) }

// parse is Parse, or ParseLenient if lenient is set. With alias, the
// types' words and strings are data's own bytes where the host can read
// them so (little-endian BTF on a little-endian host, the type section
// 4-byte aligned): data must then stay unmodified while the types are in
// use.
func parse(data []byte, base *Types, lenient, alias bool) (*Types, error) {
	h, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	alias = alias && h.order == binary.ByteOrder(binary.LittleEndian) && hostLittleEndian()
	strs, err := parseStrings(data[h.strStart:h.strEnd], stringsOf(base), alias)
	if err != nil {
		return nil, &ParseError{Offset: h.strStart, Msg: err.Error()}
	}
	t := &Types{Strings: strs, Base: base, bigEndian: h.order == binary.ByteOrder(binary.BigEndian)}
	if err := t.decodeTypes(data[h.typeStart:h.typeStart+int(h.typeLen)], h, lenient, alias); err != nil {
		return nil, err
	}
	if err := t.validate(h, lenient); err != nil {
		return nil, err
	}
	t.valid = t.Len()
	return t, nil
}

func stringsOf(base *Types) *Strings {
	if base == nil {
		return nil
	}
	return base.Strings
}

// parseHeader decodes and checks the header and the section layout.
func parseHeader(data []byte) (*header, error) {
	if len(data) < hdrLenV1 {
		return nil, &ParseError{Msg: fmt.Sprintf("%d bytes: too short for a BTF header", len(data))}
	}
	h := &header{}
	switch {
	case binary.LittleEndian.Uint16(data) == magic:
		h.order = binary.LittleEndian
	case binary.BigEndian.Uint16(data) == magic:
		h.order = binary.BigEndian
	default:
		return nil, &ParseError{Msg: fmt.Sprintf("bad magic %#04x", binary.LittleEndian.Uint16(data))}
	}
	if data[2] != version {
		return nil, &ParseError{Offset: 2, Msg: fmt.Sprintf("unsupported version %d", data[2])}
	}
	if data[3] != 0 {
		return nil, &ParseError{Offset: 3, Msg: fmt.Sprintf("unsupported header flags %#x", data[3])}
	}
	u32 := func(off int) uint32 { return h.order.Uint32(data[off:]) }
	h.hdrLen = u32(4)
	if h.hdrLen < hdrLenV1 || uint64(h.hdrLen) > uint64(len(data)) {
		return nil, &ParseError{Offset: 4, Msg: fmt.Sprintf("header length %d outside [%d, %d]", h.hdrLen, hdrLenV1, len(data))}
	}
	h.typeOff, h.typeLen, h.strOff, h.strLen = u32(8), u32(12), u32(16), u32(20)
	if h.hdrLen >= hdrLen {
		h.layoutOff, h.layoutLen = u32(24), u32(28)
	}
	for i := hdrLen; i < int(h.hdrLen); i++ {
		if data[i] != 0 {
			return nil, &ParseError{Offset: i, Msg: "unknown non-zero header data"}
		}
	}
	meta := uint64(len(data)) - uint64(h.hdrLen)
	switch {
	case uint64(h.strOff)+uint64(h.strLen) > meta:
		return nil, &ParseError{Offset: 16, Msg: fmt.Sprintf("string section [%d, +%d) past the end of the data (%d bytes after the header)", h.strOff, h.strLen, meta)}
	case uint64(h.typeOff)+uint64(h.typeLen) > uint64(h.strOff):
		return nil, &ParseError{Offset: 8, Msg: fmt.Sprintf("type section [%d, +%d) overlaps the string section at %d", h.typeOff, h.typeLen, h.strOff)}
	case h.typeOff%4 != 0 || h.typeLen%4 != 0:
		return nil, &ParseError{Offset: 8, Msg: fmt.Sprintf("type section [%d, +%d) is not 4-byte aligned", h.typeOff, h.typeLen)}
	}
	if h.layoutLen != 0 {
		end := uint64(h.layoutOff) + uint64(h.layoutLen)
		if h.layoutOff%4 != 0 || h.layoutLen%4 != 0 || uint64(h.layoutOff) < uint64(h.typeOff)+uint64(h.typeLen) || end > uint64(h.strOff) {
			return nil, &ParseError{Offset: 24, Msg: fmt.Sprintf("layout section [%d, +%d) misplaced", h.layoutOff, h.layoutLen)}
		}
	}
	h.typeStart = int(h.hdrLen) + int(h.typeOff)
	h.strStart = int(h.hdrLen) + int(h.strOff)
	h.strEnd = h.strStart + int(h.strLen)
	return h, nil
}

// decodeTypes converts the type section to host words, or with alias
// takes its bytes as the words if they are 4-byte aligned, and indexes the
// types; lenient lets reserved bits of the info word pass.
func (t *Types) decodeTypes(sec []byte, h *header, lenient, alias bool) error {
	n := len(sec) / 4
	switch {
	case alias && n > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(sec)))%4 == 0:
		t.words = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(sec))), n)
	case h.order == binary.ByteOrder(binary.LittleEndian):
		t.words = make([]uint32, n)
		for i := range t.words {
			t.words[i] = binary.LittleEndian.Uint32(sec[4*i:])
		}
	default:
		t.words = make([]uint32, n)
		for i := range t.words {
			t.words[i] = binary.BigEndian.Uint32(sec[4*i:])
		}
	}
	first := t.FirstID()
	t.offs = make([]uint32, 0, n/4+1) // most types take 4 or more words
	for i := 0; i < n; {
		id := first + TypeID(len(t.offs))
		at := h.typeStart + 4*i
		if n-i < headerWords {
			return &ParseError{Offset: at, Type: id, Msg: fmt.Sprintf("%d trailing bytes are not a type", 4*(n-i))}
		}
		k, vlen := infoKind(t.words[i+1]), infoVlen(t.words[i+1])
		size := typeWords(k, vlen)
		if size < 0 {
			return &ParseError{Offset: at, Type: id, Msg: fmt.Sprintf("unknown kind %d", k)}
		}
		if info := t.words[i+1]; info&infoReservedMask != 0 && !lenient {
			return &ParseError{Offset: at + 4, Type: id, Msg: fmt.Sprintf("%v: info word 0x%08x has reserved bits %#x set (vlen takes bits 0-15, kind 24-28)", k, info, info&infoReservedMask)}
		}
		if size > n-i {
			return &ParseError{Offset: at, Type: id, Msg: fmt.Sprintf("%v with vlen %d needs %d bytes, %d left", k, vlen, 4*size, 4*(n-i))}
		}
		if len(t.offs) >= maxTypes-int(first) {
			return &ParseError{Offset: at, Type: id, Msg: "too many types"}
		}
		t.offs = append(t.offs, uint32(i))
		i += size
	}
	return nil
}

// validate checks string offsets and type references of every own type,
// and unless lenient what FUNC and FWD refer to.
func (t *Types) validate(h *header, lenient bool) error {
	next := uint64(t.NextID())
	first := t.FirstID()
	strSize := uint64(t.Strings.Size()) // an offset is valid below it (Strings.valid)
	for i := range t.offs {
		w := t.typeAt(i)
		id := first + TypeID(i)
		k := infoKind(w[1])
		fail := func(x int, msg string) error {
			return &ParseError{Offset: h.typeStart + 4*(int(t.offs[i])+x), Type: id, Msg: msg}
		}
		if x := firstAtLeast(w, strFields(k), strSize); x >= 0 {
			return fail(x, fmt.Sprintf("%v: string offset %d outside the string table", k, w[x]))
		}
		if x := firstAtLeast(w, idFields(k), next); x >= 0 {
			return fail(x, fmt.Sprintf("%v: refers to type %d, past the last type %d", k, w[x], next-1))
		}
		if lenient {
			continue
		}
		switch k {
		case KindFunc:
			if r := TypeID(w[2]); t.Kind(r) != KindFuncProto {
				return fail(2, fmt.Sprintf("FUNC refers to type %d, a %v, not a FUNC_PROTO", r, t.Kind(r)))
			}
		case KindFwd:
			if w[2] != 0 {
				return fail(2, fmt.Sprintf("FWD has non-zero type word %d", w[2]))
			}
		}
	}
	return nil
}
