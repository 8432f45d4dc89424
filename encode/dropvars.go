package encode

import (
	"encoding/binary"
	"fmt"

	"github.com/btfgate/btfgate/btf"
)

// dropVars removes from deduplicated types the VARs the policies left
// out, with the DECL_TAGs on them and the strings only they used. drop
// says, for each VAR in type order, whether it goes: the dedup never
// merges VARs and keeps its types in order, so the n-th VAR of its output
// is the n-th the encoder built. Other types keep their order, their ids
// shift down past each removed one, and the remaining strings keep their
// order, as libbpf's string dedup would have laid them out without the
// removed types. A VAR count other than len(drop) is an error.
func dropVars(t *btf.Types, drop []bool) (*btf.Types, error) {
	order := binary.ByteOrder(binary.LittleEndian)
	raw, err := t.Marshal(order)
	if err != nil {
		return nil, fmt.Errorf("leaving out variables: %w", err)
	}
	hdr := order.Uint32(raw[4:])
	typeLen, strLen := order.Uint32(raw[12:]), order.Uint32(raw[20:])
	words := make([]uint32, typeLen/4)
	for i := range words {
		words[i] = order.Uint32(raw[hdr+4*uint32(i):])
	}
	strs := raw[hdr+typeLen : hdr+typeLen+strLen]
	strStart := uint32(t.Strings.Size()) - strLen // own strings' first offset
	first := uint32(t.FirstID())

	// Each type's start, kind and vlen.
	var offs []int
	for p := 0; p < len(words); {
		offs = append(offs, p)
		n := rawTypeWords(words[p+1])
		if n < 0 || p+n > len(words) {
			return nil, fmt.Errorf("leaving out variables: type %d has an unknown kind", first+uint32(len(offs)-1))
		}
		p += n
	}
	kindOf := func(i int) btf.Kind { return btf.Kind(words[offs[i]+1] >> 24 & 0x1f) }
	vlenOf := func(i int) int { return int(words[offs[i]+1] & 0xffff) }

	gone := make([]bool, len(offs))
	vars := 0
	for i := range offs {
		if kindOf(i) != btf.KindVar {
			continue
		}
		if vars < len(drop) && drop[vars] {
			gone[i] = true
		}
		vars++
	}
	if vars != len(drop) {
		return nil, fmt.Errorf("leaving out variables: the BTF has %d VARs, the encoder built %d", vars, len(drop))
	}
	for i := range offs {
		if kindOf(i) == btf.KindDeclTag {
			if target := words[offs[i]+2]; target >= first && gone[target-first] {
				gone[i] = true
			}
		}
	}
	// A DATASEC entry of a VAR that goes would dangle.
	for i := range offs {
		if kindOf(i) == btf.KindDatasec {
			for j := range vlenOf(i) {
				if r := words[offs[i]+3+3*j]; r >= first && gone[r-first] {
					return nil, fmt.Errorf("leaving out variables: DATASEC type %d still lists VAR %d", first+uint32(i), r)
				}
			}
		}
	}

	// New ids, then the kept types with their ids and strings rewritten.
	newID := make([]uint32, len(offs))
	next := first
	for i := range offs {
		if !gone[i] {
			newID[i] = next
			next++
		}
	}
	usedStr := map[uint32]bool{}
	var out []uint32
	for i := range offs {
		if gone[i] {
			continue
		}
		end := len(words)
		if i+1 < len(offs) {
			end = offs[i+1]
		}
		w := append([]uint32(nil), words[offs[i]:end]...)
		k, vlen := kindOf(i), vlenOf(i)
		for _, p := range rawIDFields(k, vlen) {
			if r := w[p]; r >= first {
				w[p] = newID[r-first]
			}
		}
		for _, p := range rawStrFields(k, vlen) {
			if w[p] >= strStart {
				usedStr[w[p]] = true
			}
		}
		out = append(out, w...)
	}

	// The strings still used, in their order; the first (the empty string
	// of a whole table, or a split table's first string) always stays.
	strMap := map[uint32]uint32{}
	var newStrs []byte
	for p := uint32(0); p < strLen; {
		n := uint32(0)
		for p+n < strLen && strs[p+n] != 0 {
			n++
		}
		if p == 0 || usedStr[strStart+p] {
			strMap[strStart+p] = strStart + uint32(len(newStrs))
			newStrs = append(newStrs, strs[p:p+n+1]...)
		}
		p += n + 1
	}
	for p := 0; p < len(out); {
		k, vlen := btf.Kind(out[p+1]>>24&0x1f), int(out[p+1]&0xffff)
		for _, f := range rawStrFields(k, vlen) {
			if out[p+f] >= strStart {
				out[p+f] = strMap[out[p+f]]
			}
		}
		p += rawTypeWords(out[p+1])
	}

	buf := make([]byte, int(hdr)+4*len(out)+len(newStrs))
	copy(buf, raw[:hdr])
	order.PutUint32(buf[12:], uint32(4*len(out)))
	order.PutUint32(buf[16:], uint32(4*len(out)))
	order.PutUint32(buf[20:], uint32(len(newStrs)))
	for i, w := range out {
		order.PutUint32(buf[int(hdr)+4*i:], w)
	}
	copy(buf[int(hdr)+4*len(out):], newStrs)
	nt, err := btf.Parse(buf, t.Base)
	if err != nil {
		return nil, fmt.Errorf("leaving out variables: %w", err)
	}
	return nt, nil
}

// rawTypeWords is the length in words of a type whose info word is info,
// -1 for an unknown kind.
func rawTypeWords(info uint32) int {
	vlen := int(info & 0xffff)
	switch btf.Kind(info >> 24 & 0x1f) {
	case btf.KindPtr, btf.KindFwd, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict,
		btf.KindFunc, btf.KindFloat, btf.KindTypeTag:
		return 3
	case btf.KindInt, btf.KindVar, btf.KindDeclTag:
		return 4
	case btf.KindArray:
		return 6
	case btf.KindStruct, btf.KindUnion, btf.KindEnum64, btf.KindDatasec:
		return 3 + 3*vlen
	case btf.KindEnum, btf.KindFuncProto:
		return 3 + 2*vlen
	}
	return -1
}

// rawIDFields are the word positions holding type ids in a type of kind k.
func rawIDFields(k btf.Kind, vlen int) []int {
	switch k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr, btf.KindTypedef,
		btf.KindFunc, btf.KindVar, btf.KindDeclTag, btf.KindTypeTag:
		return []int{2}
	case btf.KindArray:
		return []int{3, 4}
	case btf.KindStruct, btf.KindUnion:
		return strided(nil, vlen, 3, 1)
	case btf.KindFuncProto:
		return strided([]int{2}, vlen, 2, 1)
	case btf.KindDatasec:
		return strided(nil, vlen, 3, 0)
	}
	return nil
}

// rawStrFields are the word positions holding string offsets.
func rawStrFields(k btf.Kind, vlen int) []int {
	switch k {
	case btf.KindEnum, btf.KindFuncProto:
		return strided([]int{0}, vlen, 2, 0)
	case btf.KindEnum64, btf.KindStruct, btf.KindUnion:
		return strided([]int{0}, vlen, 3, 0)
	}
	return []int{0}
}

func strided(fixed []int, vlen, stride, elem int) []int {
	for j := range vlen {
		fixed = append(fixed, 3+stride*j+elem)
	}
	return fixed
}
