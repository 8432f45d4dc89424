package btf

import (
	"encoding/binary"
	"fmt"
)

// kindLayout is libbpf's table of how each kind is laid out after its
// btf_type: the size of a single trailing element and of each of vlen
// elements (struct btf_layout {u8 info_sz; u8 elem_sz; u16 flags}).
func kindLayout() [20][2]uint8 {
	return [20][2]uint8{
		KindInt:       {4, 0},
		KindArray:     {12, 0},
		KindStruct:    {0, 12},
		KindUnion:     {0, 12},
		KindEnum:      {0, 8},
		KindFuncProto: {0, 8},
		KindVar:       {4, 0},
		KindDatasec:   {0, 12},
		KindDeclTag:   {4, 0},
		KindEnum64:    {0, 12},
	}
}

// layoutLen is the size of the kind layout section: 20 kinds of 4 bytes.
const layoutLen = 20 * 4

// MarshalLayout is Marshal with the kind layout section of the layout
// feature: 20 entries {info_sz, elem_sz, flags} between the types and the
// strings, named by the header's layout_off and layout_len. Split BTF
// carries none (pahole ignores layout there), so it is marshalled as is.
func (t *Types) MarshalLayout(order binary.ByteOrder) ([]byte, error) {
	raw, err := t.Marshal(order)
	if err != nil || t.Base != nil {
		return raw, err
	}
	if len(raw) < hdrLen {
		return nil, fmt.Errorf("btf: marshalled BTF shorter than its header")
	}
	typeLen := order.Uint32(raw[12:])
	strOff := order.Uint32(raw[16:])
	split := hdrLen + int(strOff)
	out := make([]byte, 0, len(raw)+layoutLen)
	out = append(out, raw[:split]...)
	for _, l := range kindLayout() {
		out = append(out, l[0], l[1], 0, 0)
	}
	out = append(out, raw[split:]...)
	order.PutUint32(out[16:], strOff+layoutLen) // str_off
	order.PutUint32(out[24:], typeLen)          // layout_off
	order.PutUint32(out[28:], layoutLen)        // layout_len
	return out, nil
}
