package btf

import (
	"fmt"
	"strconv"
)

// Kind is a BTF type kind, numbered as BTF_KIND_* in the kernel's uapi btf.h.
type Kind uint8

// The BTF kinds. KindVoid (0) is only ever the implicit type id 0.
const (
	KindVoid Kind = iota
	KindInt
	KindPtr
	KindArray
	KindStruct
	KindUnion
	KindEnum
	KindFwd
	KindTypedef
	KindVolatile
	KindConst
	KindRestrict
	KindFunc
	KindFuncProto
	KindVar
	KindDatasec
	KindFloat
	KindDeclTag
	KindTypeTag
	KindEnum64

	// maxKind is the largest kind this package knows.
	maxKind = KindEnum64

	// NumKinds bounds the kinds: an array indexed by Kind has NumKinds
	// entries.
	NumKinds = maxKind + 1
)

// String returns the kind's name as bpftool prints it ("INT", "FUNC_PROTO").
func (k Kind) String() string {
	switch k {
	case KindVoid:
		return "UNKN"
	case KindInt:
		return "INT"
	case KindPtr:
		return "PTR"
	case KindArray:
		return "ARRAY"
	case KindStruct:
		return "STRUCT"
	case KindUnion:
		return "UNION"
	case KindEnum:
		return "ENUM"
	case KindFwd:
		return "FWD"
	case KindTypedef:
		return "TYPEDEF"
	case KindVolatile:
		return "VOLATILE"
	case KindConst:
		return "CONST"
	case KindRestrict:
		return "RESTRICT"
	case KindFunc:
		return "FUNC"
	case KindFuncProto:
		return "FUNC_PROTO"
	case KindVar:
		return "VAR"
	case KindDatasec:
		return "DATASEC"
	case KindFloat:
		return "FLOAT"
	case KindDeclTag:
		return "DECL_TAG"
	case KindTypeTag:
		return "TYPE_TAG"
	case KindEnum64:
		return "ENUM64"
	}
	return "KIND(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind returns the kind named s, as String spells it ("FUNC_PROTO").
func ParseKind(s string) (Kind, error) {
	for k := KindInt; k <= maxKind; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown BTF kind %q", s)
}

// MarshalText writes the kind's name, so that JSON carries "STRUCT", not 4.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// TypeID numbers a type: 0 is void, the first real type is 1 (or, in split
// BTF, the base's last id + 1).
type TypeID uint32

// Bits of the info word of a type (struct btf_type.info): vlen in bits
// 0-15, kind in bits 24-28, kind_flag in bit 31. The kernel rejects a type
// with any other bit set (BTF_INFO_MASK, 0x9f00ffff).
const (
	infoVlenMask     = 0x0000ffff
	infoKindMask     = 0x1f
	infoKindFlag     = 1 << 31
	infoReservedMask = 0x60ff0000   // bits 16-23 and 29-30: zero in valid BTF
	maxVlen          = infoVlenMask // the kernel's BTF_MAX_VLEN
)

// makeInfo encodes a type's info word.
func makeInfo(k Kind, vlen int, kindFlag bool) uint32 {
	info := uint32(k)<<24 | uint32(vlen)&infoVlenMask
	if kindFlag {
		info |= infoKindFlag
	}
	return info
}

// infoKind extracts the kind (bits 24-28, libbpf's BTF_INFO_KIND).
func infoKind(info uint32) Kind { return Kind(info >> 24 & infoKindMask) }

// infoVlen extracts the vlen (number of members, params, values...).
func infoVlen(info uint32) int { return int(info & infoVlenMask) }

// Word counts of the fixed part (struct btf_type) and of what follows it.
const (
	headerWords = 3
)

// typeWords returns the number of uint32 words a type of this kind and vlen
// occupies, or -1 for an unknown kind.
func typeWords(k Kind, vlen int) int {
	switch k {
	case KindPtr, KindFwd, KindTypedef, KindVolatile, KindConst, KindRestrict,
		KindFunc, KindFloat, KindTypeTag:
		return headerWords
	case KindInt, KindVar, KindDeclTag:
		return headerWords + 1
	case KindArray:
		return headerWords + 3
	case KindStruct, KindUnion, KindEnum64, KindDatasec:
		return headerWords + 3*vlen
	case KindEnum, KindFuncProto:
		return headerWords + 2*vlen
	}
	return -1
}
