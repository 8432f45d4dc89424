package btf

import (
	"errors"
	"fmt"
)

// Dedup returns the deduplicated, compacted equivalent of t, computed as
// libbpf's btf__dedup (the version pahole 1.31 embeds) computes it: on the same
// input it keeps the same types, in the same order (the first occurrence of
// each canonical type, renumbered without gaps), with the same contents.
//
// The passes are libbpf's: string dedup (skipped for tables grown only with
// Add, which are deduplicated by construction, as pahole's are), primitive
// types (INT, FLOAT, FWD, ENUM/ENUM64 with forward-declared enums resolved to
// full ones), struct/union/typedef graphs compared with a hypothetical map
// (resolving FWDs to the structs they declare), leftover FWDs resolved to the
// unique struct/union of their name, reference types (PTR, CONST, VOLATILE,
// RESTRICT, TYPE_TAG, FUNC, ARRAY, FUNC_PROTO, DECL_TAG), then compaction.
// VAR and DATASEC are never merged.
//
// For split BTF, types equal to base types are replaced by the base's ids and
// the base is not modified. t itself is not modified either. The result
// shares t.Strings, unless t's table came from Parse: then, as libbpf does,
// the result gets a new table holding only the referenced strings in order of
// first reference.
func Dedup(t *Types) (*Types, error) {
	if err := t.checkRefs(); err != nil {
		return nil, err
	}
	if t.Base != nil && t.Strings.base != t.Base.Strings {
		return nil, errors.New("btf: dedup: split types' string table is not split on the base's table")
	}
	d := newDeduper(t)
	steps := []struct {
		name string
		fn   func() error
	}{
		{"prep", d.prep},
		{"strings", d.dedupStrings},
		{"primitive types", d.primTypes},
		{"struct types", d.structTypes},
		{"forward declarations", d.resolveFwds},
		{"reference types", d.refTypes},
	}
	for _, s := range steps {
		if err := s.fn(); err != nil {
			return nil, fmt.Errorf("btf: dedup %s: %w", s.name, err)
		}
		if d.err != nil {
			return nil, fmt.Errorf("btf: dedup %s: %w", s.name, d.err)
		}
	}
	out, err := d.compact()
	if err != nil {
		return nil, fmt.Errorf("btf: dedup compaction: %w", err)
	}
	return out, nil
}

// Sentinels of the canonical map (BTF_UNPROCESSED_ID, BTF_IN_PROGRESS_ID) and
// the largest real id (BTF_MAX_NR_TYPES): a map entry above it means "not
// mapped yet".
const (
	unprocessedID = 0xffffffff
	inProgressID  = 0xfffffffe
	maxMappedID   = 0x7fffffff
)

// maxDepth bounds the recursion of graph comparison and reference
// resolution, so that hostile input cannot exhaust the stack.
const maxDepth = 1 << 20

// deduper is the state of one dedup run (libbpf's struct btf_dedup). All
// types, base and own, are addressed by id in one word array.
type deduper struct {
	src   *Types
	strs  *Strings
	words []uint32 // void (3 zero words), the base's types, then the own types
	offs  []uint32 // offs[id]: start of type id in words; offs[n]: end
	start uint32   // first own id
	n     uint32   // number of ids, void included

	canon     []uint32 // libbpf's d->map
	hypot     []uint32 // libbpf's d->hypot_map
	hypotList []uint32
	// adjustCanon records that a hypothetical mapping would need to resolve a
	// base FWD, which split dedup must not do (hypot_adjust_canon).
	adjustCanon bool

	table *candTable
	err   error // first internal error (e.g. a cycle in the canonical map)
}

func newDeduper(t *Types) *deduper {
	var chain []*Types
	for b := t; b != nil; b = b.Base {
		chain = append(chain, b)
	}
	nWords, n := headerWords, 1
	for _, b := range chain {
		nWords += len(b.words)
		n += b.Len()
	}
	d := &deduper{
		src:   t,
		strs:  t.Strings,
		words: make([]uint32, headerWords, nWords),
		offs:  make([]uint32, 1, n+1),
		start: uint32(t.FirstID()),
		n:     uint32(n),
	}
	for i := len(chain) - 1; i >= 0; i-- { // base first
		b := chain[i]
		shift := uint32(len(d.words))
		d.words = append(d.words, b.words...)
		for _, o := range b.offs {
			d.offs = append(d.offs, o+shift)
		}
	}
	d.offs = append(d.offs, uint32(len(d.words)))

	d.canon = make([]uint32, n)
	d.hypot = make([]uint32, n)
	for id := range d.canon {
		d.hypot[id] = unprocessedID
		switch k := d.kind(uint32(id)); {
		case id == 0:
			d.canon[id] = 0 // void is canonical
		case k == KindVar || k == KindDatasec:
			d.canon[id] = uint32(id) // never deduplicated
		default:
			d.canon[id] = unprocessedID
		}
	}
	d.table = newCandTable(t.Len()/8 + int(d.start))
	return d
}

// typ returns the words of type id (3 zero words for void).
func (d *deduper) typ(id uint32) []uint32 {
	s, e := d.offs[id], d.offs[id+1]
	return d.words[s:e:e]
}

func (d *deduper) kind(id uint32) Kind { return infoKind(d.words[d.offs[id]+1]) }

// isMapped reports whether id has a canonical type (is_type_mapped).
func (d *deduper) isMapped(id uint32) bool { return d.canon[id] <= maxMappedID }

// resolve follows the canonical map to its end (resolve_type_id).
func (d *deduper) resolve(id uint32) uint32 {
	for steps := uint32(0); d.canon[id] <= maxMappedID && d.canon[id] != id; steps++ {
		if steps > d.n {
			d.fail(fmt.Errorf("type %d: cycle in the canonical type map", id))
			return id
		}
		id = d.canon[id]
	}
	return id
}

// resolveFwd returns the struct/union a FWD resolves to, else id itself
// (resolve_fwd_id).
func (d *deduper) resolveFwd(id uint32) uint32 {
	if d.kind(id) != KindFwd {
		return id
	}
	r := d.resolve(id)
	if d.kind(r) != KindFwd {
		return r
	}
	return id
}

func (d *deduper) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// prep makes the base's types canonical and indexes them (btf_dedup_prep).
func (d *deduper) prep() error {
	for id := uint32(1); id < d.start; id++ {
		d.canon[id] = id
		w := d.typ(id)
		var h uint64
		switch infoKind(w[1]) {
		case KindVar, KindDatasec:
			continue
		case KindConst, KindVolatile, KindRestrict, KindPtr, KindFwd, KindFunc, KindFloat, KindTypeTag:
			h = hashCommon(w)
		case KindTypedef:
			h = hashTypedef(w)
		case KindInt, KindDeclTag:
			h = hashIntTag(w)
		case KindEnum, KindEnum64:
			h = hashEnum(w)
		case KindStruct, KindUnion:
			h = hashStruct(w)
		case KindArray:
			h = hashArray(w)
		case KindFuncProto:
			h = hashFnproto(w)
		default:
			return fmt.Errorf("base type %d: unknown kind %v", id, infoKind(w[1]))
		}
		d.table.add(h, id)
	}
	return nil
}

// compact keeps the canonical own types in id order, renumbered from the
// first own id, and rewrites every type id they hold to its canonical type's
// new id (btf_dedup_compact_types, btf_dedup_remap_types).
func (d *deduper) compact() (*Types, error) {
	newID := d.hypot // reused, as in libbpf
	newID[0] = 0
	for id := uint32(1); id < d.start; id++ {
		newID[id] = id
	}
	out := &Types{Strings: d.strs, Base: d.src.Base}
	next := d.start
	kept := 0
	for id := d.start; id < d.n; id++ {
		newID[id] = unprocessedID
		if d.canon[id] == id {
			kept += int(d.offs[id+1] - d.offs[id])
		}
	}
	out.words = make([]uint32, 0, kept)
	for id := d.start; id < d.n; id++ {
		if d.canon[id] != id {
			continue
		}
		out.offs = append(out.offs, uint32(len(out.words)))
		out.words = append(out.words, d.typ(id)...)
		newID[id] = next
		next++
	}
	for i := range out.offs {
		w := out.typeAt(i)
		l := idFields(infoKind(w[1]))
		for _, f := range l.fixed[:l.nfixed] {
			if err := d.remapID(&w[f], i); err != nil {
				return nil, err
			}
		}
		if l.stride != 0 {
			for j := headerWords + int(l.elem); j < len(w); j += int(l.stride) {
				if err := d.remapID(&w[j], i); err != nil {
					return nil, err
				}
			}
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

// remapID rewrites one type-id word of output type i.
func (d *deduper) remapID(p *uint32, i int) error {
	n := d.hypot[d.resolve(*p)]
	if n > maxMappedID {
		return fmt.Errorf("type %d refers to type %d, which has no canonical type", d.start+uint32(i), *p)
	}
	*p = n
	return nil
}
