package btf

import (
	"sort"
	"sync"
	"unsafe"
)

// Folding a pipelined dedup's types (Deduplication.Fold).
//
// Most of a kernel's spliced types are not canonical (1.6 M spliced, 0.1 M
// canonical), and their words are the largest thing an encode holds after
// its decode. Once a type's canonical type is final, no pass left reads
// the type itself: a mapped type is resolved, not read, by the passes
// after the one that mapped it, and compaction copies canonical types
// only. Fold copies the words of the types it does not fold into an array
// of their size, gives the old array's pages back to the operating system
// as it goes, and from then on every read of a folded type, through t
// (Type, Kind, Ref, ...) or in the dedup, reads its canonical type
// instead: a reader that reaches a folded type gets its equivalent (same
// name and shape, references to equivalent types; a forward declaration
// reads as its struct or union, an enum declaration as its enum). A folded
// type keeps its id and its place in the offsets, with no words.
//
// The mapping of the types the primitive and struct passes map (INT, FLOAT,
// ENUM, ENUM64, STRUCT, UNION, TYPEDEF) is final after those passes over
// the last batch: no later pass maps them again (pipelined.go has the one
// way a later batch can, an enum taking over a declaration, and no batch
// comes after a Fold). Fold folds those. Forward declarations (resolved by
// StartRefs) and reference types (mapped by its pass) stay as they are:
// folding them too after the reference passes gave back a quarter as much
// more, after an encode's peak (docs/performance.md, "Session 15").

// foldedID returns the id to read for own type i (index from 0) of t, and
// whether that is another type's: its canonical type when i is folded
// (t.fold, for each own type a dedup folded, the canonical type to read
// instead of it, 0 for a type read as itself).
func (t *Types) foldedID(i int) (TypeID, bool) {
	if i >= len(t.fold) {
		return 0, false
	}
	c := t.fold[i]
	return TypeID(c), c != 0
}

// Fold folds the types of a pipelined dedup whose canonical types are
// final (see above), once the last batch is taken in, and returns how many
// it folded and how many bytes of the old words' pages it gave back to the
// operating system. It folds only types without a base whose words the
// dedup reads in place, and only when Finish will not start over; on any
// other dedup, before any batch, or a second time, it does nothing and
// returns -1 types. No batch may come after it. It must not run while
// another goroutine reads the types (the dedup is the caller's
// goroutine's); Views taken before it must not be read after it.
func (s *Deduplication) Fold() (types, released int) {
	d := s.d
	t := d.src
	if s.err != nil || d.err != nil || !d.piped || !s.prepped || d.unsure != "" || d.foldEnd != 0 ||
		t.Base != nil || !d.aliased || int(d.n-d.start) != t.Len() ||
		unsafe.SliceData(d.words) != unsafe.SliceData(t.words) {
		return -1, 0
	}
	// Without a base, the per-id arrays are indexed by id from 1.
	canon := make([]uint32, d.n-d.start)
	kinds, offs := d.kinds[d.start:d.n], d.offs[d.start:d.n+1]
	// The copy runs in two halves at once, split at the type where the
	// second half of the old words starts; keptMid is what the first half
	// keeps.
	mid := sort.Search(len(canon), func(i int) bool { return int(offs[i]) >= len(t.words)/2 })
	kept, keptMid := 0, 0 // words of the types not folded
	for i := range canon {
		if i == mid {
			keptMid = kept
		}
		if id := d.start + uint32(i); structPassKind(kinds[i]) {
			if c := d.resolve(id); c != id {
				canon[i] = c
			}
		}
		if canon[i] == 0 {
			kept += int(offs[i+1] - offs[i])
		} else {
			types++
		}
	}
	if d.err != nil { // a cycle in the canonical map
		return -1, 0
	}
	// Room for what is appended before Finish: the function types and
	// sections, few against a kernel's spliced types but a prototype and a
	// FUNC per function (with too little room, appending them grew the
	// array three times, 11 MB copied on the corpus kernel). Room never
	// written costs address space, not memory.
	words := make([]uint32, kept, kept+max(kept/4, 1<<16))
	midOff, endOff := offs[mid], offs[len(canon)] // before the halves rewrite them
	var second int
	var wg sync.WaitGroup
	wg.Go(func() { second = foldCopy(t, offs, canon, words, mid, len(canon), keptMid, endOff) })
	released = foldCopy(t, offs, canon, words, 0, mid, 0, midOff)
	wg.Wait()
	released += second
	d.offs[d.n] = uint32(kept)
	t.words, d.words = words, words
	t.fold, d.fold, d.foldEnd = canon, canon, d.n
	return types, released
}

// foldCopy copies the words of the types lo..hi-1 (own indexes) that are
// not folded (canon[i] == 0) from t's words to words from position at on,
// sets their offsets, in t and in the dedup's offs (from the first own
// id), to their new places (a folded type's is where the next one starts),
// and gives the old words' whole pages from type lo up to end (the old
// offset of type hi, read before either half rewrote it) back, returning
// how many bytes that was. Two calls on disjoint ranges may run at once.
func foldCopy(t *Types, offs, canon, words []uint32, lo, hi, at int, end uint32) (released int) {
	old := t.words
	done := int(offs[lo]) // old[:done] is given back, or the other half's
	for i := lo; i < hi; i++ {
		from, to := offs[i], end
		if i+1 < hi {
			to = offs[i+1]
		}
		offs[i], t.offs[i] = uint32(at), uint32(at)
		if canon[i] == 0 {
			at += copy(words[at:], old[from:to])
		}
		if int(to)-done >= releaseStep {
			released += releaseWords(old[done:to])
			done = int(to)
		}
	}
	return released + releaseWords(old[done:end])
}

// releaseStep is how many words Fold copies between two releases of the
// old words' pages: the new array grows while the old one shrinks, and the
// two together stay near the old one's size.
const releaseStep = 1 << 18

// structPassKind reports whether the primitive or the struct pass decides
// the canonical type of a type of kind k (forward declarations excepted:
// StartRefs resolves them).
func structPassKind(k Kind) bool {
	switch k {
	case KindInt, KindFloat, KindEnum, KindEnum64, KindStruct, KindUnion, KindTypedef:
		return true
	}
	return false
}

// releaseWords gives the whole pages within w, which nothing reads any
// more, back to the operating system (releasePages) and returns how many
// bytes that was.
func releaseWords(w []uint32) int {
	page := uintptr(pageSize())
	if len(w) == 0 || page == 0 {
		return 0
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(w)))
	end := start + uintptr(len(w))*4
	lo, hi := (start+page-1)&^(page-1), end&^(page-1)
	if hi <= lo {
		return 0
	}
	return releasePages(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w)), lo-start), int(hi-lo))
}
