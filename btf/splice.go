package btf

import (
	"fmt"
	"unsafe"
)

// Fragment is one compile unit's BTF before it is spliced into the whole
// (package convert builds them from DWARF).
//
// Types holds the CU's types with local ids equal to the type table ids. An
// array's index type is the external reference Types.Len()+1, because which
// "int" pahole uses depends on earlier CUs. Tail holds what follows the
// types (decl tags, later variables); its references to CU type x are
// written as Tail.Len()+x.
type Fragment struct {
	Types    *Types
	Tail     *Types
	Strs     []string // the names: a name field holds 1 + its index here, 0 for ""
	IntID    TypeID   // the CU's first base type named "int", 0 if none
	HasArray bool     // the CU has arrays (pahole's need_index_type)
	VarIDs   []TypeID // tail-local id of each variable's VAR

	// PrepareKnown's: the unit's cycles; 1 + the destination offset of
	// each of Strs (0: not known); noteDefinitions' hashes.
	graph     *unitGraph
	premapped []uint32
	defHash   []uint64
	defOK     []uint64
}

// Splicer appends CU fragments to one Types in CU order, reproducing how
// pahole numbers types across CUs: each CU's types, then (once) the
// synthetic "int" used as array index type, then the CU's tail.
//
// Fragments name their strings by index into their own string list;
// splicing rewrites them to offsets in the destination's string table,
// looked up by the string's address in the DWARF string sections when it
// lies there (one array read) and by content otherwise.
type Splicer struct {
	dst       *Types
	hasIndex  bool   // an index type id is known (pahole's has_index_type)
	needIndex bool   // some CU so far had arrays (pahole's need_index_type)
	indexID   TypeID // the array index type
	intName   uint32

	secs  []strSection // DWARF string sections strings may alias; slots: offset+1
	remap []uint32     // fragment string index -> destination offset

	known *knownSplice // nil: every type is appended
}

// DropKnown makes Add drop the types that equal ones already appended
// (known.go says which, and why the dedup's result stays the same).
func (s *Splicer) DropKnown() { s.known = &knownSplice{} }

// Dropped returns how many types Add dropped as known.
func (s *Splicer) Dropped() int {
	if s.known == nil {
		return 0
	}
	return s.known.dropped
}

// LocalIDs maps a spliced fragment's local type ids to global ones. It is
// valid until the next Add.
type LocalIDs struct {
	shift TypeID
	to    []uint32 // when types were dropped: to[local]
}

// Global returns the global id of local id (0 for void).
func (m LocalIDs) Global(id TypeID) TypeID {
	switch {
	case id == 0:
		return 0
	case m.to != nil:
		return TypeID(m.to[id])
	}
	return id + m.shift
}

// NewSplicer returns a Splicer appending to dst. strs indexes the sections
// (e.g. .debug_str, .debug_line_str) fragment strings may point into (nil:
// none); it only makes splicing faster.
func NewSplicer(dst *Types, strs *StringSections) *Splicer {
	return &Splicer{dst: dst, secs: strs.caches()}
}

// Grow makes room for about words more words and types more types, so
// that splicing a large input does not copy the growing section repeatedly.
func (s *Splicer) Grow(words, types int) {
	if cap(s.dst.words)-len(s.dst.words) < words {
		w := make([]uint32, len(s.dst.words), len(s.dst.words)+words)
		copy(w, s.dst.words)
		s.dst.words = w
	}
	if cap(s.dst.offs)-len(s.dst.offs) < types {
		o := make([]uint32, len(s.dst.offs), len(s.dst.offs)+types)
		copy(o, s.dst.offs)
		s.dst.offs = o
	}
}

// Add splices one CU's fragment and returns the global ids of its local
// type ids, and the shift from its tail-local ids to global ones (global
// = local + shift).
func (s *Splicer) Add(f *Fragment) (types LocalIDs, tail TypeID, err error) {
	if err := f.Types.Err(); err != nil {
		return LocalIDs{}, 0, err
	}
	if err := f.Tail.Err(); err != nil {
		return LocalIDs{}, 0, err
	}
	s.mapStrings(f)
	// Spliced types refer only to types and strings that exist (splice
	// maps every reference or fails), so they stay valid if all were.
	if s.dst.valid == s.dst.Len() {
		defer func() {
			if err == nil {
				s.dst.valid = s.dst.Len()
			}
		}()
	}
	shift := s.dst.NextID() - 1
	n := TypeID(f.Types.Len())
	// Types are dropped only once the index type is known: a unit that
	// may add it keeps its ids (the synthetic int's id counts them).
	lookups := s.hasIndex
	if !s.hasIndex {
		if f.IntID != 0 {
			s.indexID = shift + f.IntID
			s.hasIndex = true
		} else {
			s.indexID = shift + n + 1
		}
	}
	s.needIndex = s.needIndex || f.HasArray
	ids := LocalIDs{shift: shift}
	if s.known != nil {
		ids.to = s.spliceKnown(f, s.indexID, lookups)
	}
	if ids.to == nil {
		if err := s.splice(f.Types, shift, func(r uint32) (uint32, bool) {
			if r == uint32(n)+1 {
				return uint32(s.indexID), true
			}
			return 0, false
		}); err != nil {
			return LocalIDs{}, 0, fmt.Errorf("splice CU types: %w", err)
		}
	}
	if s.needIndex && !s.hasIndex {
		if s.intName == 0 {
			s.intName = s.dst.Strings.Add("int")
		}
		id := s.dst.AddInt(s.intName, 4, IntSigned, 0, 32)
		if id != s.indexID {
			return LocalIDs{}, 0, fmt.Errorf("splice: synthetic int got id %d, arrays use %d", id, s.indexID)
		}
		s.hasIndex = true
	}
	tailShift := s.dst.NextID() - 1
	if f.Tail.Len() == 0 {
		return ids, tailShift, nil
	}
	tn := uint32(f.Tail.Len())
	if err := s.splice(f.Tail, tailShift, func(r uint32) (uint32, bool) {
		// Tail references to CU type x are written as tail length + x.
		if x := r - tn; r > tn && x <= uint32(n) {
			return uint32(ids.Global(TypeID(x))), true
		}
		return 0, false
	}); err != nil {
		return LocalIDs{}, 0, fmt.Errorf("splice CU tail: %w", err)
	}
	return ids, tailShift, nil
}

// mapStrings fills s.remap for a fragment's string list (index 0 is ""),
// taking the offsets a worker found already interned (PrepareKnown).
func (s *Splicer) mapStrings(f *Fragment) {
	s.remap = append(s.remap[:0], 0)
	pre := f.premapped
	if len(pre) != len(f.Strs) {
		pre = nil
	}
	for i, str := range f.Strs {
		if pre != nil && pre[i] != 0 {
			s.remap = append(s.remap, pre[i]-1)
			continue
		}
		s.remap = append(s.remap, s.intern(str))
	}
}

// Intern adds str to the destination's string table (if new) and returns
// its offset, using the DWARF string-section cache.
func (s *Splicer) Intern(str string) uint32 { return s.intern(str) }

func (s *Splicer) intern(str string) uint32 {
	if str == "" {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(str)))
	for i := range s.secs {
		sec := &s.secs[i]
		off, ok := sec.Offset(p)
		if !ok {
			continue
		}
		slot := &sec.slots[sec.run(off)]
		got := strSlot(slot.Load())
		if got.val() != 0 && got.off() == off {
			return got.val() - 1
		}
		v := s.dst.Strings.Add(str)
		if got.val() == 0 {
			slot.Store(uint64(packSlot(off, v+1)))
		}
		return v
	}
	return s.dst.Strings.Add(str)
}

// splice appends src's types to s.dst: names through s.remap, type ids
// 1..src.Len() shifted by shift, others through ext (false: an error).
func (s *Splicer) splice(src *Types, shift TypeID, ext func(uint32) (uint32, bool)) error {
	dst := s.dst
	n := uint32(src.Len())
	base := uint32(len(dst.words))
	dst.words = append(dst.words, src.words...)
	for _, o := range src.offs {
		dst.offs = append(dst.offs, o+base)
	}
	var bad error
	id := func(p *uint32) {
		r := *p
		switch {
		case r == 0:
		case r <= n:
			*p = r + uint32(shift)
		default:
			v, ok := ext(r)
			if !ok && bad == nil {
				bad = fmt.Errorf("reference to type %d past the fragment's %d types", r, n)
			}
			*p = v
		}
	}
	name := func(p *uint32) {
		if int(*p) >= len(s.remap) {
			if bad == nil {
				bad = fmt.Errorf("string index %d past the fragment's %d strings", *p, len(s.remap)-1)
			}
			*p = 0
			return
		}
		*p = s.remap[*p]
	}
	words := dst.words[base:]
	for i, o := range src.offs {
		end := uint32(len(src.words))
		if i+1 < len(src.offs) {
			end = src.offs[i+1]
		}
		w := words[o:end]
		name(&w[0])
		k, vlen := infoKind(w[1]), infoVlen(w[1])
		switch k {
		case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict, KindFunc, KindTypeTag, KindVar, KindDeclTag:
			id(&w[2])
		case KindArray:
			id(&w[3])
			id(&w[4])
		case KindStruct, KindUnion:
			for m := 0; m < vlen; m++ {
				name(&w[3+3*m])
				id(&w[4+3*m])
			}
		case KindEnum:
			for m := 0; m < vlen; m++ {
				name(&w[3+2*m])
			}
		case KindEnum64:
			for m := 0; m < vlen; m++ {
				name(&w[3+3*m])
			}
		case KindFuncProto:
			id(&w[2])
			for m := 0; m < vlen; m++ {
				name(&w[3+2*m])
				id(&w[4+2*m])
			}
		case KindDatasec:
			for m := 0; m < vlen; m++ {
				id(&w[3+3*m])
			}
		}
	}
	return bad
}
