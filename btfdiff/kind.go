package btfdiff

import (
	"fmt"

	"github.com/btfgate/btfgate/btf"
)

// Kind is a BTF type kind, numbered as BTF_KIND_* in the kernel's uapi.
type Kind uint8

// The BTF kinds. KindVoid (id 0) never occurs in a type section.
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

	numKinds
)

// String returns the kind's name as BTF tools print it, e.g. "FUNC_PROTO":
// btf.Kind's names (the numbering is the kernel's in both), with "VOID" for
// id 0.
func (k Kind) String() string {
	if k == KindVoid {
		return "VOID"
	}
	return btf.Kind(k).String()
}

// ParseKind returns the kind named s (as Kind.String spells it).
func ParseKind(s string) (Kind, error) {
	for k := KindInt; k < numKinds; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown BTF kind %q", s)
}

// refByName reports whether a reference to a type of kind k that has a name
// is written as kind and name instead of being expanded. FUNC, VAR and
// DATASEC are included: a DATASEC entry or a decl tag points at them, and
// they are compared on their own.
func (k Kind) refByName() bool {
	switch k {
	case KindInt, KindStruct, KindUnion, KindEnum, KindEnum64, KindFwd,
		KindTypedef, KindFloat, KindFunc, KindVar, KindDatasec:
		return true
	}
	return false
}

// indexed reports whether types of kind k that have a name are indexed by
// name and reported as named types (functions and variables have their own
// groups).
func (k Kind) indexed() bool {
	switch k {
	case KindInt, KindStruct, KindUnion, KindEnum, KindEnum64, KindFwd,
		KindTypedef, KindFloat, KindDatasec:
		return true
	}
	return false
}

// MarshalText writes the kind's name, so that reports carry "STRUCT", not 4.
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
