package btf

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"
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
	s, err := StartDedup(t)
	if err != nil {
		return nil, err
	}
	if err := s.Structs(); err != nil {
		return nil, err
	}
	return s.Finish()
}

// A Deduplication is a Dedup done in steps, so that its passes can run
// while the types are still being produced. StartDedup sets it up on the
// types t holds; Structs runs the passes over primitive and
// struct/union/typedef types (btf_dedup_prim_types, btf_dedup_struct_types)
// on them; Finish takes in what was appended to t since and runs the rest.
// Between StartDedup and Finish, t may grow only by types that those two
// passes skip and that nothing before them refers to: FUNC, FUNC_PROTO,
// PTR, CONST, VOLATILE, RESTRICT, TYPE_TAG, ARRAY, DECL_TAG, VAR and DATASEC
// (not TYPEDEF, which libbpf dedups in the struct pass), and by strings.
// Finish refuses other kinds. Structs may run on another goroutine than
// the one appending to t: it reads only what t held at StartDedup. The
// result is Dedup's on the grown t: libbpf's primitive and struct passes
// never look at types of the other kinds except through references, and
// references only go from later types to earlier ones here.
//
// A pipelined Deduplication (StartPipelinedDedup) goes further: Advance
// takes in the types appended since the last call, in batches, and runs
// the two passes on each batch as it comes, so that they overlap with
// producing the next batches. The types of a batch must refer only to
// types of the same batch or earlier ones (an encode's batches are its
// compile units); Finish then takes in the function types. See
// pipelined.go for why the result is still Dedup's, and when Finish has to
// start over to make sure of it.
//
// Advance may run on another goroutine than the one appending to t, given
// a View of t taken by the appending goroutine: it reads nothing else of t.
// Finish runs where t is appended to, once appending is over.
type Deduplication struct {
	// Restarted says why Finish of a pipelined dedup started over ("" if
	// it did not).
	Restarted string

	d           *deduper
	prepped     bool   // prep has run
	done        uint32 // ids below it went through the primitive and struct passes
	refsStarted bool   // forward declarations are resolved, the reference pass begun
	refsDone    uint32 // ids below it went through the reference pass (0: none)
	err         error
}

// StartDedup checks t and sets up its dedup.
func StartDedup(t *Types) (*Deduplication, error) { return startDedup(t, 0) }

// startDedup is StartDedup with room in the per-type arrays for ids below
// room (see newDeduper).
func startDedup(t *Types, room int) (*Deduplication, error) {
	if err := t.Err(); err != nil {
		return nil, err
	}
	if t.Strings == nil {
		return nil, errors.New("btf: dedup: types have no string table")
	}
	if t.Base != nil && t.Strings.base != t.Base.Strings {
		return nil, errors.New("btf: dedup: split types' string table is not split on the base's table")
	}
	d, err := newDeduper(t, room, false)
	if err != nil {
		return nil, fmt.Errorf("btf: dedup: %w", err)
	}
	return &Deduplication{d: d, done: d.start}, nil
}

// StartPipelinedDedup is StartDedup for a pipelined dedup (see
// Deduplication): call Advance after each batch of types appended to t.
// t may be a View, so that another goroutine can set the dedup up while
// types are appended to the original; Finish then takes in what the
// original holds. The dedup's arrays have room for types types (own ones,
// void and base included) and words more type words, so that taking in
// batch after batch does not copy them over and over; 0 for no estimate.
func StartPipelinedDedup(t *Types, types, words int) (*Deduplication, error) {
	s, err := startDedup(t, types)
	if err != nil {
		return nil, err
	}
	if !s.d.aliased {
		s.d.words = slices.Grow(s.d.words, words)
	}
	if t.origin != nil {
		s.d.src, s.d.strs = t.origin, t.origin.Strings
	}
	s.d.piped = s.d.strs.deduped // parsed tables: everything waits for Finish
	return s, nil
}

// Advance takes in the types view holds beyond those taken in so far
// (view nil: none; non-nil only for a pipelined dedup) and runs the
// primitive and struct passes over every type not through them yet. view
// must be t or a View of it. A table whose strings need deduplicating (one
// from Parse) leaves everything to Finish, since string dedup rewrites
// every type.
func (s *Deduplication) Advance(view *Types) error {
	if s.err != nil || !s.d.strs.deduped {
		return s.err
	}
	d := s.d
	if d.piped && d.unsure != "" {
		// Finish starts over in libbpf's order: the batches' passes and
		// their types' state would be thrown away.
		return nil
	}
	if view != nil {
		if !d.piped {
			s.err = errors.New("btf: dedup: Advance with new types on a dedup that is not pipelined")
			return s.err
		}
		if d.foldEnd != 0 {
			s.err = errors.New("btf: dedup: Advance with new types after Fold")
			return s.err
		}
		if err := d.extend(view, 0); err != nil {
			s.err = fmt.Errorf("btf: dedup: %w", err)
			return s.err
		}
	}
	var steps []dedupStep
	if !s.prepped {
		s.prepped = true
		steps = append(steps, dedupStep{"prep", d.prep}, dedupStep{"strings", d.dedupStrings})
		if d.piped {
			steps = append(steps, dedupStep{"pipeline", func() error { d.splitTables(); return nil }})
		}
	}
	lo, hi := s.done, d.n
	steps = append(steps,
		dedupStep{"primitive types", func() error { d.usePrimTable(); d.primTypes(lo, hi); return nil }},
		dedupStep{"struct types", func() error { d.useStructTable(); return d.structTypes(lo, hi) }})
	s.done = hi
	s.err = d.run(steps)
	return s.err
}

// Structs is Advance(nil): the primitive and struct passes over the types
// taken in so far.
func (s *Deduplication) Structs() error { return s.Advance(nil) }

// Finish takes in the types appended to t since the last Advance, runs the
// remaining passes and returns the deduplicated, compacted types.
func (s *Deduplication) Finish() (*Types, error) {
	if s.err != nil {
		return nil, s.err
	}
	d := s.d
	if d.piped && d.unsure != "" {
		// The batches may have been deduplicated otherwise than libbpf
		// would: start over in libbpf's order, on all the types (Dedup
		// checks them as extend would).
		s.Restarted = d.unsure
		return Dedup(d.src)
	}
	checked := s.done
	if !s.prepped {
		checked = 0 // no pass has run: every kind may still come
	}
	if err := d.extend(d.src, checked); err != nil {
		return nil, fmt.Errorf("btf: dedup: %w", err)
	}
	var steps []dedupStep
	if !s.prepped {
		d.piped = false // nothing ran in batches: libbpf's way from the start
		steps = append(steps, dedupStep{"prep", d.prep}, dedupStep{"strings", d.dedupStrings},
			dedupStep{"primitive types", func() error { d.primTypes(d.start, d.n); return nil }},
			dedupStep{"struct types", func() error { return d.structTypes(d.start, d.n) }})
	}
	if !s.refsStarted {
		steps = append(steps, dedupStep{"forward declarations", func() error { d.joinTables(); return d.resolveFwds() }})
	}
	steps = append(steps, dedupStep{"reference types", func() error { return s.refTypes(d.n) }})
	if err := d.run(steps); err != nil {
		return nil, err
	}
	out, err := d.compact()
	if err != nil {
		return nil, fmt.Errorf("btf: dedup compaction: %w", err)
	}
	return out, nil
}

// StartRefs runs, for a pipelined dedup after its last batch, what comes
// after the struct pass on the types taken in so far: forward declarations
// resolved, then the reference pass over those types. Finish then only has
// the reference pass over the types appended since. Like Advance, it may
// run on another goroutine than the one appending to t. It does nothing
// when Finish is going to start over anyway, or for a dedup that is not
// pipelined.
//
// The result stays Dedup's: the forward declarations are resolved among
// structs and unions, of which no more come, and libbpf's reference pass
// visits types in id order, so those taken in so far come first, and they
// refer to none of the later ones.
func (s *Deduplication) StartRefs() error {
	d := s.d
	if s.err != nil || !d.piped || !s.prepped || d.unsure != "" || s.refsStarted {
		return s.err
	}
	s.refsStarted = true
	n := d.n
	s.err = d.run([]dedupStep{
		{"forward declarations", func() error { d.joinTables(); return d.resolveFwds() }},
		{"reference types", func() error { return s.refTypes(n) }},
	})
	return s.err
}

// refTypes runs the reference pass over the ids from where the last call
// stopped (the first own id at first) to hi.
func (s *Deduplication) refTypes(hi uint32) error {
	d := s.d
	if s.refsDone == 0 {
		s.refsDone = d.start
		d.clearHypot() // hypot now marks canonical reference types
	} else if hi > s.refsDone {
		// The types appended after StartRefs (functions, sections): few,
		// nearly all canonical, so room for all of them is what they
		// take, made once instead of by doubling at the end of an encode.
		d.table.reserve(int(hi - s.refsDone))
		d.refWords = slices.Grow(d.refWords, int(d.offs[hi-d.lazyBase]-d.offs[s.refsDone-d.lazyBase]))
	}
	err := d.refTypes(s.refsDone, hi)
	s.refsDone = hi
	return err
}

// dedupStep is one pass of the dedup.
type dedupStep struct {
	name string
	fn   func() error
}

// run runs steps in order and returns the first error, naming its pass.
func (d *deduper) run(steps []dedupStep) error {
	for _, s := range steps {
		if err := s.fn(); err != nil {
			return fmt.Errorf("btf: dedup %s: %w", s.name, err)
		}
		if d.err != nil {
			return fmt.Errorf("btf: dedup %s: %w", s.name, d.err)
		}
	}
	return nil
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
const maxDepth = 1 << 18

// deduper is the state of one dedup run (libbpf's struct btf_dedup). Every
// type, base and own, is addressed by its id.
type deduper struct {
	src   *Types
	strs  *Strings
	words []uint32 // the types' words: src's own (not copied) or a copy of base and own
	offs  []uint32 // per id from lazyBase on: start of the type in words; the last: the end
	start uint32   // first own id
	n     uint32   // number of ids, void included
	void  [headerWords]uint32
	// dense: the candidate tables are a prepared base's, filled by prep
	// and then only read (candTable.dense).
	dense bool

	// kinds is, per id from lazyBase on, the kind (a compact copy for the
	// hot paths).
	kinds []Kind
	// canon is libbpf's d->map for the ids from lazyBase on (canonOf);
	// baseCanon holds the few entries of ids below it that are not the
	// id itself.
	canon     []uint32
	baseCanon map[uint32]uint32
	// hypot is libbpf's d->hypot_map, each entry inverted (hypotOf), so
	// that the zeros an array starts with read as unprocessedID. The
	// reference pass reuses it to hold the offset in refWords of each
	// canonical reference type, and compaction (as libbpf does) to hold
	// the new ids of own types.
	hypot []uint32
	// hypotLazy: ids below it (the lazy base's, see lazyBase) have their
	// part of hypot written a page at a time, and a page that setHypot has
	// not written is not read (hypotOf gives unprocessedID, what it holds):
	// a fresh page read first maps the zero page, and the write after it
	// faults again and flushes the TLB of every CPU running the process.
	// hypotPages has a bit per 4 KiB page of the array, hypotPhase is the
	// index of hypot[0] in its page. 0 once the array is copied (extend),
	// which writes every page.
	hypotLazy, hypotPhase uint32
	hypotPages            []uint64

	hypotList []uint32
	// adjustCanon records that a hypothetical mapping would need to resolve a
	// base FWD, which split dedup must not do (hypot_adjust_canon).
	adjustCanon bool

	table *candTable
	// Indexes of the table's enums, for fullEnum: entries of enums with
	// values by content hash, and of enum declarations by table key.
	enumByContent, enumDecls *enumIndex
	// baseNames, from a prepared base's snapshot, is the base's part of
	// resolveFwds's names map; nil: resolveFwds reads the base's types.
	baseNames *structNames

	// refWords holds the words of each canonical reference type with its
	// references resolved (libbpf rewrites them in place; src stays intact).
	refWords []uint32
	scratch  []uint32

	// Where the own types' words start in words, and whether words is the
	// own types' array itself (see extend). For split BTF on a single base
	// the base's words are read in place too: offsets below baseLen index
	// baseWords, the others words (less baseLen), so that neither array is
	// copied (see typ).
	ownShift  uint32
	aliased   bool
	baseWords []uint32
	baseLen   uint32
	// lazyBase: ids below it are the single base's, read in place, whose
	// per-id state is never filled in: offs, kinds and canon start at
	// lazyBase (kind and typ read the base's own words and offsets, an id
	// is canonical unless baseCanon says otherwise), and their part of
	// hypot is what its zeroed array reads as (no hypothetical mapping).
	// A module's dedup on the kernel's base so pays for the base ids it
	// touches, not for all of them. 0 when every id's state is filled in.
	lazyBase  uint32
	baseTypes *Types

	err error // first internal error (e.g. a cycle in the canonical map)

	// fold, once types are folded (Deduplication.Fold), holds for each own
	// id below foldEnd (index id-start) the canonical type typ reads
	// instead, 0 for the id itself; foldEnd is 0 before.
	fold    []uint32
	foldEnd uint32

	pipe // state of a pipelined dedup (pipelined.go)
}

// newDeduper sets up the dedup of t, checking t's references on the way;
// its per-type arrays have room for ids below room.
func newDeduper(t *Types, room int, dense bool) (*deduper, error) {
	var chain []*Types // t, its base, the base's base...
	for b := t; b != nil; b = b.Base {
		chain = append(chain, b)
	}
	n := 1
	for _, b := range chain {
		n += b.Len()
	}
	d := &deduper{
		src:   t,
		strs:  t.Strings,
		hypot: make([]uint32, n, max(n, room)),
		start: uint32(t.FirstID()),
		n:     uint32(n),
		dense: dense,
	}
	// Types are read in place unless string offsets must be rewritten, or
	// a base has a base of its own.
	switch {
	case len(chain) == 1 && t.Strings.deduped:
		d.words = t.words
		d.aliased = true
	case len(chain) == 2 && t.Strings.deduped:
		d.words = t.words
		d.aliased = true
		d.baseWords = chain[1].words
		d.baseLen = uint32(len(chain[1].words))
		if b := chain[1]; b.valid == b.Len() { // else its references are checked below
			d.lazyBase, d.baseTypes = d.start, b
		}
	default:
		total := 0
		for _, b := range chain {
			total += len(b.words)
		}
		d.words = make([]uint32, 0, total)
	}
	if d.lazyBase > 0 {
		d.hypotLazy = d.lazyBase
		d.hypotPhase = uint32(uintptr(unsafe.Pointer(unsafe.SliceData(d.hypot))) % 4096 / 4)
		d.hypotPages = make([]uint64, (d.lazyBase+d.hypotPhase)/1024/64+1)
	}
	own, ownRoom := n-int(d.lazyBase), max(n, room)-int(d.lazyBase)
	d.offs = make([]uint32, own+1, ownRoom+1)
	d.kinds = make([]Kind, own, ownRoom)
	d.canon = make([]uint32, own, ownRoom)
	id := 1
	for i := len(chain) - 1; i >= 0; i-- { // base first
		b := chain[i]
		shift := uint32(0)
		switch {
		case d.aliased && i == 0:
			shift = d.baseLen // 0 without a base
		case !d.aliased:
			shift = uint32(len(d.words))
			d.words = append(d.words, b.words...)
		}
		if uint32(id) >= d.lazyBase {
			if err := d.initTypes(b, uint32(id), shift); err != nil {
				return nil, err
			}
		}
		d.ownShift = shift // the last round is t's own types
		id += b.Len()
	}
	d.setCanon(0, 0) // void is canonical
	d.setHypot(0, unprocessedID)
	d.offs[uint32(n)-d.lazyBase] = d.baseLen + uint32(len(d.words))
	if d.baseSnapshot() == nil { // else prep decodes the base's tables
		d.newTables()
	}
	return d, nil
}

// newTables makes the candidate table, with room for the base (prep adds
// it all) and a part of the own types (1 in 37 of the kernel's end up
// canonical; the table grows if need be), and the enum indexes.
func (d *deduper) newTables() {
	d.table = newCandTable(int(d.start)+d.src.Len()/64, d.dense)
	d.enumByContent, d.enumDecls = &enumIndex{}, &enumIndex{}
}

// initTypes checks the types of b (own types of t or of one of its bases),
// whose first id is first and whose words start at shift in d.words, and
// fills in their per-id state. Large inputs are split between goroutines.
func (d *deduper) initTypes(b *Types, first, shift uint32) error {
	const chunk = 1 << 16
	workers := min(runtime.GOMAXPROCS(0), (b.Len()+chunk-1)/chunk, 8)
	if workers <= 1 {
		return d.initRange(b, first, shift, 0, b.Len())
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	per := (b.Len() + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, b.Len())
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = d.initRange(b, first, shift, lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // the lowest type id's
		}
	}
	return nil
}

// initRange is initTypes for b's own types lo..hi-1.
func (d *deduper) initRange(b *Types, first, shift uint32, lo, hi int) error {
	next := uint64(b.NextID())
	strSize := uint64(b.Strings.Size())
	for j := lo; j < hi; j++ {
		id := first + uint32(j)
		w := b.typeAt(j)
		k := infoKind(w[1])
		if j >= b.valid { // else checked when parsed or spliced
			if x := firstAtLeast(w, idFields(k), next); x >= 0 {
				return fmt.Errorf("type %d (%v) refers to type %d, past the last type %d", id, k, w[x], next-1)
			}
			if x := firstAtLeast(w, strFields(k), strSize); x >= 0 {
				return fmt.Errorf("type %d (%v) has string offset %d past the string table (%d bytes)", id, k, w[x], strSize)
			}
		}
		c := uint32(unprocessedID)
		if k == KindVar || k == KindDatasec {
			c = id // never deduplicated
		}
		i := id - d.lazyBase
		d.offs[i], d.kinds[i], d.canon[i], d.hypot[id] = b.offs[j]+shift, k, c, ^uint32(unprocessedID)
	}
	return nil
}

// extend takes in the types t (d.src or a view of it) holds beyond those
// taken in so far. Types from id checked on must be of kinds that the
// primitive and struct passes skip (see Deduplication); 0 checks none.
func (d *deduper) extend(t *Types, checked uint32) error {
	have := int(d.n - d.start)
	if t.Len() == have {
		return nil
	}
	if t.Len() < have {
		return fmt.Errorf("%d types taken in, but only %d left", have, t.Len())
	}
	if d.aliased {
		d.words = t.words
	} else {
		d.words = append(d.words, t.words[t.offs[have]:]...)
	}
	n := d.start + uint32(t.Len())
	// initRange sets every new entry (offs[n] below). An array that grows
	// gets room for as many own types again, so that batch after batch
	// does not copy it (and the base's part) over and over.
	room := int(n) + int(n-d.start)
	lo := int(d.lazyBase)
	d.offs = extendTo(d.offs, int(n)+1-lo, room+1-lo)
	d.kinds = extendTo(d.kinds, int(n)-lo, room-lo)
	d.canon = extendTo(d.canon, int(n)-lo, room-lo)
	if h := extendTo(d.hypot, int(n), room); unsafe.SliceData(h) != unsafe.SliceData(d.hypot) {
		d.hypot, d.hypotLazy = h, 0 // copied whole
	} else {
		d.hypot = h
	}
	if err := d.initRange(t, d.start, d.ownShift, have, t.Len()); err != nil {
		return err
	}
	if checked != 0 {
		for id := max(d.n, checked); id < n; id++ {
			switch k := d.kind(id); k {
			case KindInt, KindFloat, KindFwd, KindEnum, KindEnum64, KindStruct, KindUnion, KindTypedef:
				return fmt.Errorf("type %d (%v) was added after the struct pass", id, k)
			}
		}
	}
	d.n = n
	d.offs[n-d.lazyBase] = d.baseLen + uint32(len(d.words))
	return nil
}

// extendTo returns s with length n, growing its array to a capacity of at
// least room if needed; the new elements are not cleared when the array
// has room.
func extendTo[T any](s []T, n, room int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	return append(s[:cap(s)], make([]T, max(n, room)-cap(s))...)[:n]
}

// typ returns the words of type id (3 zero words for void).
func (d *deduper) typ(id uint32) []uint32 {
	if id == 0 {
		return d.void[:]
	}
	if id < d.lazyBase {
		return d.baseTypes.typeAt(int(id - 1))
	}
	if id < d.foldEnd && id >= d.start {
		if c := d.fold[id-d.start]; c != 0 {
			id = c
		}
	}
	s, e := d.offs[id-d.lazyBase], d.offs[id+1-d.lazyBase]
	if s < d.baseLen {
		return d.baseWords[s:e:e]
	}
	s, e = s-d.baseLen, e-d.baseLen
	return d.words[s:e:e]
}

func (d *deduper) kind(id uint32) Kind {
	if id < d.lazyBase {
		return infoKind(d.typ(id)[1])
	}
	return d.kinds[id-d.lazyBase]
}

// canonOf returns libbpf's d->map[id].
func (d *deduper) canonOf(id uint32) uint32 {
	if id < d.lazyBase {
		if len(d.baseCanon) != 0 {
			if c, ok := d.baseCanon[id]; ok {
				return c
			}
		}
		return id
	}
	return d.canon[id-d.lazyBase]
}

// setCanon sets libbpf's d->map[id] to c.
func (d *deduper) setCanon(id, c uint32) {
	switch {
	case id >= d.lazyBase:
		d.canon[id-d.lazyBase] = c
	case c != id:
		if d.baseCanon == nil {
			d.baseCanon = make(map[uint32]uint32)
		}
		d.baseCanon[id] = c
	default:
		delete(d.baseCanon, id)
	}
}

// hypotOf returns libbpf's d->hypot_map[id].
func (d *deduper) hypotOf(id uint32) uint32 {
	if id < d.hypotLazy {
		if p := (id + d.hypotPhase) / 1024; d.hypotPages[p/64]&(1<<(p%64)) == 0 {
			return unprocessedID // a page not written: zeros
		}
	}
	return ^d.hypot[id]
}

// setHypot sets libbpf's d->hypot_map[id] to v.
func (d *deduper) setHypot(id, v uint32) {
	if id < d.hypotLazy {
		p := (id + d.hypotPhase) / 1024
		d.hypotPages[p/64] |= 1 << (p % 64)
	}
	d.hypot[id] = ^v
}

// isMapped reports whether id has a canonical type (is_type_mapped).
func (d *deduper) isMapped(id uint32) bool { return d.canonOf(id) <= maxMappedID }

// resolve follows the canonical map to its end (resolve_type_id).
func (d *deduper) resolve(id uint32) uint32 {
	if c := d.canonOf(id); c == id || c > maxMappedID {
		return id
	}
	return d.resolveChain(id)
}

// resolveChain is resolve for a mapped id. It shortens the chain it walked
// (path compression): every id on it is mapped to the end. libbpf walks the
// chain each time; the result is the same, because the map is only ever
// written at chain ends (an id being processed, or the canonical end of a
// resolved chain), so a later write extends a chain and never reroutes its
// middle.
func (d *deduper) resolveChain(id uint32) uint32 {
	end := id
	for steps := uint32(0); ; steps++ {
		c := d.canonOf(end)
		if c > maxMappedID || c == end {
			break
		}
		if steps > d.n {
			d.fail(fmt.Errorf("type %d: cycle in the canonical type map", id))
			return id
		}
		end = c
	}
	for id != end {
		next := d.canonOf(id)
		d.setCanon(id, end)
		id = next
	}
	return end
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
	if s := d.baseSnapshot(); s != nil {
		if d.prepFromSnapshot(s) {
			return nil
		}
		d.newTables()
	}
	if d.piped { // the struct pass's table (see splitTables)
		d.structTab = newCandTable(int(d.start)/8, d.dense)
	}
	for id := uint32(1); id < d.start; id++ {
		d.setCanon(id, id)
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
		d.addCand(h, id, w)
		if k := infoKind(w[1]); d.structTab != nil && (k == KindStruct || k == KindUnion || k == KindTypedef) {
			d.structTab.add(h, id)
		}
	}
	return nil
}

// compact keeps the canonical own types in id order, renumbered from the
// first own id, and rewrites every type id they hold to its canonical type's
// new id (btf_dedup_compact_types, btf_dedup_remap_types).
func (d *deduper) compact() (*Types, error) {
	// The new ids of own types go to hypot, as in libbpf; void and the
	// base's keep theirs (remapID).
	kept, nKept := 0, 0
	for id := d.start; id < d.n; id++ {
		d.setHypot(id, unprocessedID)
		if d.canonOf(id) == id {
			d.setHypot(id, d.start+uint32(nKept))
			kept += len(d.typ(id))
			nKept++
		}
	}
	out := &Types{Strings: d.strs, Base: d.src.Base, words: make([]uint32, 0, kept), offs: make([]uint32, 0, nKept)}
	for id := d.start; id < d.n; id++ {
		if d.canonOf(id) != id {
			continue
		}
		start := len(out.words)
		out.offs = append(out.offs, uint32(start))
		out.words = append(out.words, d.typ(id)...)
		w := out.words[start:]
		l := idFields(infoKind(w[1]))
		for _, f := range l.fixed[:l.nfixed] {
			if err := d.remapID(&w[f], id); err != nil {
				return nil, err
			}
		}
		if l.stride != 0 {
			for j := headerWords + int(l.elem); j < len(w); j += int(l.stride) {
				if err := d.remapID(&w[j], id); err != nil {
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

// remapID rewrites one type-id word of type id to the new id of its
// canonical type.
func (d *deduper) remapID(p *uint32, id uint32) error {
	r := d.resolve(*p)
	if r < d.start { // void or the base's: the same id
		*p = r
		return nil
	}
	n := d.hypotOf(r)
	if n > maxMappedID {
		return fmt.Errorf("type %d refers to type %d, which has no canonical type", id, *p)
	}
	*p = n
	return nil
}
