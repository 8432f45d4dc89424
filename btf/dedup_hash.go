package btf

// Type signature hashes and equality tests of the dedup, on raw words
// (w[0] name, w[1] info, w[2] size or type, then the kind's own words). The
// hashes are libbpf's, bit for bit (h*31 + value on 64 bits), because equal
// hashes decide which candidates share a list and so which one wins.

func hashCombine(h uint64, v uint32) uint64 { return h*31 + uint64(v) }

// hashCommon hashes name, info and size/type (btf_hash_common).
func hashCommon(w []uint32) uint64 {
	return hashCombine(hashCombine(hashCombine(0, w[0]), w[1]), w[2])
}

// hashTypedef hashes name and info only (btf_hash_typedef).
func hashTypedef(w []uint32) uint64 { return hashCombine(hashCombine(0, w[0]), w[1]) }

// hashIntTag hashes an INT or DECL_TAG (btf_hash_int_decl_tag).
func hashIntTag(w []uint32) uint64 { return hashCombine(hashCommon(w), w[3]) }

// hashEnum hashes the name only, so that enum forward declarations meet
// their definitions (btf_hash_enum).
func hashEnum(w []uint32) uint64 { return hashCombine(0, w[0]) }

// hashStruct hashes a STRUCT/UNION without its member types (btf_hash_struct).
func hashStruct(w []uint32) uint64 {
	h := hashCommon(w)
	for i := headerWords; i+2 < len(w); i += 3 {
		h = hashCombine(h, w[i])
		h = hashCombine(h, w[i+2])
	}
	return h
}

// hashArray hashes an ARRAY with its (resolved) types (btf_hash_array).
func hashArray(w []uint32) uint64 {
	return hashCombine(hashCombine(hashCombine(hashCommon(w), w[3]), w[4]), w[5])
}

// hashFnproto hashes a FUNC_PROTO with its (resolved) types (btf_hash_fnproto).
func hashFnproto(w []uint32) uint64 {
	h := hashCommon(w)
	for i := headerWords; i+1 < len(w); i += 2 {
		h = hashCombine(h, w[i])
		h = hashCombine(h, w[i+1])
	}
	return h
}

// equalCommon compares name, info and size/type (btf_equal_common).
func equalCommon(a, b []uint32) bool { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] }

// equalWords compares two types word for word. For types whose words are
// all compared by libbpf (INT and DECL_TAG: btf_equal_int_tag; ENUM and
// ENUM64: btf_equal_enum; ARRAY: btf_equal_array; FUNC_PROTO:
// btf_equal_fnproto) this is the same test, as equal info words mean equal
// lengths.
func equalWords(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// equalTypedef compares name and info (btf_equal_typedef).
func equalTypedef(a, b []uint32) bool { return a[0] == b[0] && a[1] == b[1] }

func isAnyEnum(w []uint32) bool {
	k := infoKind(w[1])
	return k == KindEnum || k == KindEnum64
}

// isEnumFwd reports an enum without values, a forward declaration.
func isEnumFwd(w []uint32) bool { return isAnyEnum(w) && infoVlen(w[1]) == 0 }

// compatEnum is btf_compat_enum: equal, or one is a forward declaration of
// the other (then kind and size do not matter).
func compatEnum(a, b []uint32) bool {
	if !isEnumFwd(a) && !isEnumFwd(b) {
		return equalCommon(a, b) && equalWords(a, b)
	}
	return a[0] == b[0] && isAnyEnum(a) && isAnyEnum(b)
}

// shallowEqualStruct compares a STRUCT/UNION without member types
// (btf_shallow_equal_struct).
func shallowEqualStruct(a, b []uint32) bool {
	if !equalCommon(a, b) || len(a) != len(b) {
		return false
	}
	for i := headerWords; i+2 < len(a); i += 3 {
		if a[i] != b[i] || a[i+2] != b[i+2] {
			return false
		}
	}
	return true
}

// compatArray compares an ARRAY without its types (btf_compat_array).
func compatArray(a, b []uint32) bool { return equalCommon(a, b) && a[5] == b[5] }

// compatFnproto compares a FUNC_PROTO without return and parameter types
// (btf_compat_fnproto).
func compatFnproto(a, b []uint32) bool {
	if a[0] != b[0] || a[1] != b[1] || len(a) != len(b) {
		return false
	}
	for i := headerWords; i+1 < len(a); i += 2 {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
