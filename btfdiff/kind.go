package btfdiff

import "github.com/btfgate/btfgate/btf"

// Kind is a BTF type kind: btf's, whose names (MarshalText) reports carry.
type Kind = btf.Kind

// refByName reports whether a reference to a type of kind k that has a name
// is written as kind and name instead of being expanded. FUNC, VAR and
// DATASEC are included: a DATASEC entry or a decl tag points at them, and
// they are compared on their own.
func refByName(k Kind) bool {
	switch k {
	case btf.KindInt, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFwd,
		btf.KindTypedef, btf.KindFloat, btf.KindFunc, btf.KindVar, btf.KindDatasec:
		return true
	}
	return false
}

// indexed reports whether types of kind k that have a name are indexed by
// name and reported as named types (functions and variables have their own
// groups).
func indexed(k Kind) bool {
	switch k {
	case btf.KindInt, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFwd,
		btf.KindTypedef, btf.KindFloat, btf.KindDatasec:
		return true
	}
	return false
}
