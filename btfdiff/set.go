package btfdiff

import (
	"slices"
	"strings"

	"github.com/btfgate/btfgate/btf"
)

// Set is the content of one BTF blob: a multiset of content keys, and the
// keys of each function, variable and named type by name. A split BTF's
// Set holds only the split's own types; its keys still render the base
// types they reference.
type Set struct {
	name, base string
	total      int
	counts     [btf.NumKinds]int
	keys       []keyInfo             // distinct keys, in order of first type
	keyIndex   map[fingerprint]int32 // into keys
	entities   []entityInfo          // in order of first type
	entIndex   map[fingerprint]int32 // into entities, by entityFingerprint
}

// keyInfo is one distinct content key and how many types have it.
type keyInfo struct {
	fp    fingerprint
	key   string
	name  string // the type's name if it is a function, variable or named type
	kind  Kind
	count int32
}

// entityInfo is a function, variable or named type: the fingerprints of
// the keys of all types of that kind and name, sorted.
type entityInfo struct {
	fp   fingerprint
	kind Kind
	name string
	keys []fingerprint
}

// entityFingerprint identifies kind k and name; a NUL cannot occur in a
// BTF name, so kind and name cannot run together.
func entityFingerprint(k Kind, name string) fingerprint {
	return fingerprintOf([]byte(k.String() + "\x00" + name))
}

// Kind is a BTF type kind: btf's, whose names (MarshalText) reports carry.
type Kind = btf.Kind

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

// newSet renders the key of every own type of t (read from size bytes of
// BTF, its base's included).
func newSet(t *btf.Types, size int64) (*Set, error) {
	n := t.Len()
	s := &Set{
		keys:     make([]keyInfo, 0, n),
		keyIndex: make(map[fingerprint]int32, n),
		entIndex: make(map[fingerprint]int32, n/2),
	}
	r := newRenderer(t, size)
	for id := t.FirstID(); id < t.NextID(); id++ {
		key, fp, err := r.key(id)
		if err != nil {
			return nil, err
		}
		ty := t.Type(id)
		k := ty.Kind()
		s.counts[k]++
		s.total++
		ki, ok := s.keyIndex[fp]
		if ok {
			s.keys[ki].count++
		} else {
			ki = int32(len(s.keys))
			s.keyIndex[fp] = ki
			s.keys = append(s.keys, keyInfo{fp: fp, key: key, kind: k, count: 1})
		}
		if k != btf.KindFunc && k != btf.KindVar && !indexed(k) {
			continue
		}
		name := t.Strings.String(ty.NameOff())
		if name == "" {
			continue
		}
		s.keys[ki].name = name
		efp := entityFingerprint(k, name)
		if i, ok := s.entIndex[efp]; ok {
			s.entities[i].keys = append(s.entities[i].keys, fp)
		} else {
			s.entIndex[efp] = int32(len(s.entities))
			s.entities = append(s.entities, entityInfo{fp: efp, kind: k, name: name, keys: []fingerprint{fp}})
		}
	}
	for i := range s.entities {
		if keys := s.entities[i].keys; len(keys) > 1 {
			slices.SortFunc(keys, fingerprint.compare)
		}
	}
	return s, nil
}

// count returns how many types have the key with fingerprint fp.
func (s *Set) count(fp fingerprint) int32 {
	if i, ok := s.keyIndex[fp]; ok {
		return s.keys[i].count
	}
	return 0
}

// keyOf returns the key with fingerprint fp, which s must hold.
func (s *Set) keyOf(fp fingerprint) string { return s.keys[s.keyIndex[fp]].key }

// Name returns the input's name (its path for Load).
func (s *Set) Name() string { return s.name }

// Base returns the name of the base BTF, or "" for base BTF.
func (s *Set) Base() string { return s.base }

// Len returns the number of types in the Set.
func (s *Set) Len() int { return s.total }

// Count returns the number of types of kind k.
func (s *Set) Count(k Kind) int {
	if k >= btf.NumKinds {
		return 0
	}
	return s.counts[k]
}

// Multiplicity returns how many types have the content key key.
func (s *Set) Multiplicity(key string) int { return int(s.count(fingerprintOf([]byte(key)))) }

// Lookup returns the sorted content keys of the functions (btf.KindFunc),
// variables (btf.KindVar) or named types of kind k called name; several types
// may share a name.
func (s *Set) Lookup(k Kind, name string) []string {
	i, ok := s.entIndex[entityFingerprint(k, name)]
	if !ok {
		return nil
	}
	keys := make([]string, len(s.entities[i].keys))
	for j, fp := range s.entities[i].keys {
		keys[j] = s.keyOf(fp)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}
