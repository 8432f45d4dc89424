package btf

import (
	"math/bits"
	"slices"
)

// Known types. A Splicer that drops known types (Splicer.DropKnown) does
// not append a unit's type when an earlier unit already appended one with
// the same closure: the same words and names, and references to the same
// types (for a type on a reference cycle of its unit, the same cycle).
// References to a dropped type go to the earlier one instead. On a kernel
// about three in five types are such copies (every unit repeats the
// headers it includes): the dedup then reads only the rest, and the
// pre-dedup types take half the memory.
//
// Contract: the dedup of the spliced types is that of all the types, byte
// for byte, or KnownUnsure says it might not be (the encoder then starts
// over without dropping). A dropped type and the earlier one have the
// same closure, so libbpf's passes mostly map both to one canonical type,
// never the dropped one (it comes later). Where libbpf's choices depend
// on the order it meets types in, a copy can map otherwise; the cases
// found (TestDropKnownDedupsAlike, random and synthesised units
// deduplicated with and without dropping) are excluded here, each type of
// them opaque (kept, never matched nor remembered, and so is every type
// that refers to one):
//   - VARs and DATASECs, which libbpf never deduplicates;
//   - enum declarations (libbpf maps one to the first compatible enum), and
//     full enums after a declaration of their name (the last full enum
//     takes the declaration over): enumDecls, declaredBefore;
//   - cycles of more than maxKnownCycle types (the kernel's core structs
//     pointing to one another: too costly to match), cycles with two
//     members equal but for their references (libbpf folds the first copy
//     into fewer types and a later copy not the same way: selfSimilar),
//     cycles without a pointer and structs holding a FWD by value (no C
//     program has them: hasPtr, holdsDecl);
//   - structs, unions, typedefs and FWDs of a name already defined twice
//     (which definition a FWD resolves to is decided by the first struct
//     pass walk that meets it: noteDefinitions); a second definition can
//     come after copies were dropped, which KnownUnsure finds;
//   - units with two copies of one earlier type that libbpf's
//     identical-types test tells apart (libbpf compares them apart): the
//     whole unit is kept (collides).
// On the corpus kernel none of this makes the encode start over: 1,955,201
// types are dropped, and the output is unchanged.
//
// Matching is exact: a hash finds candidates, and the words are then
// compared (for a cycle, the two cycles are walked side by side).

// maxKnownCycle is the largest reference cycle whose types may be dropped.
// A kept cycle is remembered by hashing it from each of its members: the
// cost is its size squared.
const maxKnownCycle = 64

// internalRef marks, in a hashed cycle, a reference to the n-th type of
// the walk (n | internalRef) instead of a global id.
const internalRef = 1 << 31

// knownTable maps closure hashes to the global ids of the types that have
// them: open addressing, linear probing; id 0 is a free slot. Several ids
// may share a hash: find asks the caller to compare.
type knownTable struct {
	hashes []uint64
	ids    []uint32
	n      int
}

// find returns the first id stored under h for which match is true, or 0.
func (k *knownTable) find(h uint64, match func(id uint32) bool) uint32 {
	if len(k.ids) == 0 {
		return 0
	}
	mask := uint64(len(k.ids) - 1)
	for i := h & mask; k.ids[i] != 0; i = (i + 1) & mask {
		if k.hashes[i] == h && match(k.ids[i]) {
			return k.ids[i]
		}
	}
	return 0
}

// add stores id under h.
func (k *knownTable) add(h uint64, id uint32) {
	if 4*(k.n+1) > 3*len(k.ids) {
		k.grow()
	}
	k.put(h, id)
	k.n++
}

func (k *knownTable) put(h uint64, id uint32) {
	mask := uint64(len(k.ids) - 1)
	i := h & mask
	for k.ids[i] != 0 {
		i = (i + 1) & mask
	}
	k.hashes[i], k.ids[i] = h, id
}

func (k *knownTable) grow() {
	oldH, oldI := k.hashes, k.ids
	size := max(2*len(oldI), 1<<12)
	k.hashes, k.ids = make([]uint64, size), make([]uint32, size)
	for i, id := range oldI {
		if id != 0 {
			k.put(oldH[i], id)
		}
	}
}

// hashWords hashes one type's words (a 64-bit multiply-xorshift mix; its
// collisions only cost a compare).
func hashWords(h uint64, w []uint32) uint64 {
	for _, x := range w {
		h = (h ^ uint64(x)) * 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	h ^= uint64(len(w))
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

// Decisions for a unit's local type.
const (
	knownUndecided uint8 = iota
	knownDropped         // equals an earlier type: to[x] is that type's id
	knownKept            // appended as to[x], and remembered
	knownOpaque          // appended as to[x], never matched nor remembered
)

// unitKnown is the known-type pass's scratch for one unit, reused.
type unitKnown struct {
	g     *unitGraph // the unit's components
	n     uint32     // the unit's types have local ids 1..n
	state []uint8    // per local id
	to    []uint32   // per local id: its global id; to[n+1] = the index type's
	// Matching.
	buf      []uint32 // a type's words, names and references made global
	internal []int    // positions in buf of references inside the cycle
	walk     []uint32 // a cycle's members in walk order
	num      []int32  // per local id: its number in the walk, -1 none
	pair     map[uint32]uint32
	rev      map[uint32]uint32
	refBuf   []uint32
	shallow  []uint32          // selfSimilar's second type
	decls    map[uint32]uint32 // enum declarations' names: first local id
	seen     map[uint32]uint32
	own      unitGraph // the components of a fragment not prepared
}

// unitGraph is a unit's reference graph cut into strongly connected
// components (Tarjan's algorithm), in reverse topological order: a
// component comes after every one it refers to. Fragment.PrepareKnown
// builds it on the goroutine that made the fragment.
type unitGraph struct {
	src     *Types // the types it was built for
	n       uint32
	ok      bool     // the unit is well formed (checkedRefs)
	comps   []uint32 // the components' members, one after the other
	compEnd []int32  // end of each component in comps
	inComp  []int32  // per local id: its component; -1 while on Tarjan's stack
	// decl: bit x is holdsDecl of local id x, for the structs, unions and
	// arrays of components the splicer may drop (maxKnownCycle types at
	// most), when declDone: found beside the other units' splicing
	// (findDecls), rather than on the splicer's one goroutine.
	decl     []uint64
	declDone bool
	// hashDefs' scratch.
	remap, buf []uint32
	// Tarjan's scratch.
	num    []tarjanNum // per local id
	stack  []uint32
	call   []tarjanFrame
	refBuf []uint32
}

// tarjanNum is a type's visit number (-1: not visited yet) and the
// lowest visit number it reaches, side by side: the walk reads both.
type tarjanNum struct{ order, low int32 }

// PrepareKnown does for a Splicer that drops known types (DropKnown) what
// Add need not do on its one goroutine: call it where the fragment is
// made, beside the other units' splicing. It finds the fragment's
// reference cycles and, with names shared by the splicer (ShareNames; nil:
// none), maps the names the splicer has met, hashes the definitions
// whose names are all mapped (noteDefinitions) and finds the types that
// hold a declaration by value (holdsDecl). reuse, if not nil, is a
// spliced fragment whose buffers it takes over.
func (f *Fragment) PrepareKnown(reuse *Fragment, names *NameHints) {
	if reuse != nil && reuse != f {
		if reuse.graph != nil {
			f.graph, reuse.graph = reuse.graph, nil
		}
		f.premapped, reuse.premapped = reuse.premapped[:0], nil
		f.defHash, reuse.defHash = reuse.defHash[:0], nil
		f.defOK, reuse.defOK = reuse.defOK[:0], nil
	}
	if f.graph == nil {
		f.graph = &unitGraph{}
	}
	f.graph.build(f.Types, len(f.Strs)+1)
	f.premapped, f.defHash = f.premapped[:0], f.defHash[:0] // none yet (mapStrings, defHashOf)
	if names == nil || !f.graph.ok {
		return
	}
	f.graph.findDecls(f.Types)
	if secs := names.secs.Load(); secs != nil {
		f.premap(*secs)
		f.hashDefs()
	}
}

// unmapped is a name hashDefs has no destination offset for.
const unmapped = ^uint32(0)

// hashDefs sets defHash[i] (and bit i of defOK) to the hash noteDefinitions
// takes of local type i+1, a struct, union or typedef with a name, when
// premap mapped all its names.
func (f *Fragment) hashDefs() {
	g := f.graph
	n := f.Types.Len()
	f.defHash = resize(f.defHash, n)
	f.defOK = resize(f.defOK, (n+63)/64)
	clear(f.defOK)
	remap := resize(g.remap, len(f.Strs)+1)
	g.remap = remap
	remap[0] = 0
	for i, v := range f.premapped {
		remap[i+1] = v - 1 // 0 (not mapped) - 1 is unmapped
	}
	for i := range n {
		w := f.Types.typeAt(i)
		kind, ok := definition(w)
		if !ok {
			continue
		}
		g.buf = shallowWords(g.buf, w, remap)
		if !namesMapped(g.buf, kind) {
			continue
		}
		f.defHash[i] = hashWords(0, g.buf)
		f.defOK[i/64] |= 1 << (i % 64)
	}
}

// namesMapped reports whether no name of w (one type, names mapped by
// shallowWords) is unmapped.
func namesMapped(w []uint32, k Kind) bool {
	ok := true
	forEachFieldIndex(w, strFields(k), func(i int) {
		if w[i] == unmapped {
			ok = false
		}
	})
	return ok
}

// defHashOf returns hashDefs' hash of local type i+1, if it has one.
func (f *Fragment) defHashOf(i int) (uint64, bool) {
	if len(f.defHash) != f.Types.Len() || f.defOK[i/64]&(1<<(i%64)) == 0 {
		return 0, false
	}
	return f.defHash[i], true
}

// build finds src's components; names (fragment string indexes) must be
// below strs.
func (g *unitGraph) build(src *Types, strs int) {
	n := uint32(src.Len())
	g.src, g.n = src, n
	g.comps, g.compEnd = g.comps[:0], g.compEnd[:0]
	m := int(n) + 2
	g.num = resize(g.num, m)
	g.inComp = resize(g.inComp, m)
	for i := range g.num {
		g.num[i].order = -1
	}
	g.stack, g.call = g.stack[:0], g.call[:0]
	g.ok = g.components(src, strs)
	g.declDone = false
}

// findDecls sets decl (declDone) for a graph that is ok. On two CPUs it
// costs the workers more than it saves the splicer, which calls holdsDecl
// only until a component is found opaque: it is done with the names
// (namesBesideFrom in package encode).
func (g *unitGraph) findDecls(src *Types) {
	m := int(g.n) + 2
	g.decl = resize(g.decl, (m+63)/64)
	clear(g.decl)
	g.declDone = true
	start := int32(0)
	for _, end := range g.compEnd {
		if end-start <= maxKnownCycle {
			for _, x := range g.comps[start:end] {
				w := src.typeAt(int(x - 1))
				switch infoKind(w[1]) {
				case KindStruct, KindUnion, KindArray:
					if holdsDecl(src, w) {
						g.decl[x/64] |= 1 << (x % 64)
					}
				}
			}
		}
		start = end
	}
}

// holdsDecl reports holdsDecl of local id x (a member of a component of
// at most maxKnownCycle types), w its words.
func (g *unitGraph) holdsDecl(x uint32, w []uint32) bool {
	if !g.declDone {
		return holdsDecl(g.src, w)
	}
	return g.decl[x/64]&(1<<(x%64)) != 0
}

// tarjanFrame is a type being walked: its references still to look at
// are refBuf[next:end].
type tarjanFrame struct {
	v         uint32
	next, end int32
}

// reset sizes the scratch for a unit of n types.
func (u *unitKnown) reset(n uint32) {
	u.n = n
	m := int(n) + 2
	u.state = resize(u.state, m)
	u.to = resize(u.to, m)
	u.num = resize(u.num, m)
	clear(u.state)
	for i := range u.num {
		u.num[i] = -1
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// localRefs appends to dst the local references (1..n) of type x of src,
// a type checkedRefs accepted.
func localRefs(dst []uint32, src *Types, x, n uint32) []uint32 {
	dst, _ = appendLocalRefs(dst, src.typeAt(int(x-1)), n)
	return dst
}

// appendLocalRefs appends to dst the local references (1..n) among the
// words w of a type, and reports whether each of its references is in
// w and void, local or the index type (n+1).
func appendLocalRefs(dst, w []uint32, n uint32) ([]uint32, bool) {
	l := idFields(infoKind(w[1]))
	ok := true
	add := func(r uint32) {
		switch {
		case r > n+1:
			ok = false
		case r >= 1 && r <= n:
			dst = append(dst, r)
		}
	}
	for _, f := range l.fixed[:l.nfixed] {
		if int(f) >= len(w) {
			return dst, false
		}
		add(w[f])
	}
	if l.stride != 0 {
		for i := headerWords + int(l.elem); i < len(w); i += int(l.stride) {
			add(w[i])
		}
	}
	return dst, ok
}

// components finds the strongly connected components of the unit's
// reference graph (Tarjan's algorithm, without recursion), and reports
// whether the unit is well formed (checkedRefs; names below strs): if
// not, the components are not to be used. A visited type is on the stack
// while its inComp is -1.
func (g *unitGraph) components(src *Types, strs int) bool {
	n := g.n
	var counter int32
	num, inComp := g.num, g.inComp
	refBuf := g.refBuf[:0]
	ok := true
	visit := func(v uint32) tarjanFrame {
		num[v] = tarjanNum{counter, counter}
		counter++
		inComp[v] = -1
		g.stack = append(g.stack, v)
		start := int32(len(refBuf))
		var good bool
		refBuf, good = checkedRefs(refBuf, src, v, n, strs)
		ok = ok && good
		return tarjanFrame{v: v, next: start, end: int32(len(refBuf))}
	}
	for root := uint32(1); root <= n; root++ {
		if num[root].order >= 0 {
			continue
		}
		g.call = append(g.call[:0], visit(root))
		for len(g.call) > 0 {
			top := &g.call[len(g.call)-1]
			if top.next < top.end {
				r := refBuf[top.next]
				top.next++
				switch {
				case num[r].order < 0:
					g.call = append(g.call, visit(r))
				case inComp[r] < 0: // on the stack
					num[top.v].low = min(num[top.v].low, num[r].order)
				}
				continue
			}
			v := top.v
			g.call = g.call[:len(g.call)-1]
			if len(g.call) > 0 {
				p := g.call[len(g.call)-1].v
				num[p].low = min(num[p].low, num[v].low)
			}
			if num[v].low != num[v].order {
				continue
			}
			c := int32(len(g.compEnd))
			for {
				x := g.stack[len(g.stack)-1]
				g.stack = g.stack[:len(g.stack)-1]
				g.comps = append(g.comps, x)
				inComp[x] = c
				if x == v {
					break
				}
			}
			g.compEnd = append(g.compEnd, int32(len(g.comps)))
		}
		refBuf = refBuf[:0] // no frame is left to read it
	}
	g.refBuf = refBuf[:0]
	return ok
}

// translate writes type x's words to u.buf with names through remap and
// references outside component c through u.to (void and the index type
// included); the positions of references inside c go to u.internal (their
// words keep the local id). It reports the weakest state among the
// references outside c: knownDropped if all may be matched and are
// dropped (or void or the index), knownKept if some go to kept types,
// knownOpaque if some go to opaque ones.
func (u *unitKnown) translate(src *Types, x uint32, c int32, remap []uint32) uint8 {
	w := src.typeAt(int(x - 1))
	u.buf = append(u.buf[:0], w...)
	u.internal = u.internal[:0]
	k := infoKind(w[1])
	forEachFieldIndex(u.buf, strFields(k), func(i int) {
		u.buf[i] = remap[u.buf[i]]
	})
	worst := knownDropped
	forEachFieldIndex(u.buf, idFields(k), func(i int) {
		r := u.buf[i]
		switch {
		case r == 0:
		case r <= u.n && u.g.inComp[r] == c:
			u.internal = append(u.internal, i)
		default: // r <= n+1: the unit was checked
			switch s := u.state[r]; {
			case r == u.n+1 || s == knownDropped:
			case s == knownOpaque:
				worst = knownOpaque
			case worst != knownOpaque:
				worst = knownKept
			}
			u.buf[i] = u.to[r]
		}
	})
	return worst
}

// forEachFieldIndex calls fn with the index in w of every word that
// layout l describes, in increasing order.
func forEachFieldIndex(w []uint32, l fieldLayout, fn func(i int)) {
	for _, f := range l.fixed[:l.nfixed] {
		fn(int(f))
	}
	if l.stride == 0 {
		return
	}
	for i := headerWords + int(l.elem); i < len(w); i += int(l.stride) {
		fn(i)
	}
}

// cycleHash hashes component c's types from root: the types in walk order
// (breadth first through references inside c, in field order), each as
// global words whose references inside c are internalRef | their number
// in the walk. words(x) gives x's words and the positions of its
// references inside c (translate's u.buf and u.internal).
func (u *unitKnown) cycleHash(root uint32, words func(x uint32) ([]uint32, []int)) uint64 {
	u.walk = append(u.walk[:0], root)
	u.num[root] = 0
	h := uint64(0x27d4eb2f165667c5)
	for i := 0; i < len(u.walk); i++ {
		w, internal := words(u.walk[i])
		for _, p := range internal {
			r := w[p]
			if u.num[r] < 0 {
				u.num[r] = int32(len(u.walk))
				u.walk = append(u.walk, r)
			}
			w[p] = internalRef | uint32(u.num[r])
		}
		h = hashWords(h, w)
	}
	for _, x := range u.walk {
		u.num[x] = -1
	}
	return h
}

// knownSplice is a Splicer's state for dropping known types.
type knownSplice struct {
	table   knownTable
	u       unitKnown
	dropped int // types dropped so far
	// targets has a bit set for each type that dropped types went to.
	targets []uint64
	// defs holds, per struct or union name (its offset << 1) and typedef
	// name (offset << 1 | 1), a hash of its first definition's words but
	// for its references; suspect, the names that have had a second,
	// different one.
	defs    map[uint64]uint64
	suspect map[uint64]bool
	// enumDecls holds the names of the enums declared (without values)
	// by the units spliced so far.
	enumDecls map[uint32]bool
}

// checkedRefs appends to dst the local references (1..n) of type x of
// src, and reports whether x is what splicing accepts: every reference
// void, a local id or the index type (n+1), and every name an index below
// strs (into the splicer's remap). A unit with a type that fails is
// spliced whole, and the splice reports the error.
func checkedRefs(dst []uint32, src *Types, x, n uint32, strs int) ([]uint32, bool) {
	w := src.typeAt(int(x - 1))
	if len(w) < headerWords {
		return dst, false
	}
	dst, ok := appendLocalRefs(dst, w, n)
	forEachFieldIndex(w, strFields(infoKind(w[1])), func(j int) {
		if j >= len(w) || int(w[j]) >= strs {
			ok = false
		}
	})
	return dst, ok
}

// spliceKnown appends the CU types of src (local ids 1..n, n+1 the array
// index type, whose global id is index) to s.dst, dropping those equal to
// known types when lookups is set, and remembers the ones it appends. It
// returns the global id of each local id (to[0] = 0, to[n+1] = index), or
// nil when the unit is not well formed (splice it whole instead).
func (s *Splicer) spliceKnown(f *Fragment, index TypeID, lookups bool) []uint32 {
	k := s.known
	u := &k.u
	src := f.Types
	u.g = f.graph
	if u.g == nil || u.g.src != src || u.g.n != uint32(src.Len()) {
		u.g = &u.own
		u.g.build(src, len(s.remap))
	}
	if !u.g.ok {
		return nil
	}
	n := uint32(src.Len())
	u.reset(n)
	u.to[0], u.to[n+1] = 0, uint32(index)
	g := u.g
	u.enumDecls(s, src)
	k.noteDefinitions(u, f, s.remap)
	start := int32(0)
	for c, end := range g.compEnd {
		u.decide(s, src, int32(c), g.comps[start:end], lookups)
		start = end
	}
	if lookups && u.collides(s, src) {
		// Two of the unit's types are copies of one earlier type that
		// libbpf tells apart: it compares them as two types (a kept type's
		// equivalence may hinge on it), so the unit is spliced whole.
		clear(u.state)
		start = 0
		for c, end := range g.compEnd {
			u.decide(s, src, int32(c), g.comps[start:end], false)
			start = end
		}
	}
	next := uint32(s.dst.NextID())
	for x := uint32(1); x <= n; x++ {
		if u.state[x] != knownDropped {
			u.to[x] = next
			next++
		} else {
			k.dropped++
			k.markTarget(u.to[x])
		}
	}
	s.appendKept(src)
	if k.enumDecls == nil {
		k.enumDecls = map[uint32]bool{}
	}
	for name := range u.decls {
		k.enumDecls[name] = true
	}
	start = 0
	for c, end := range g.compEnd {
		u.learn(s, src, int32(c), g.comps[start:end])
		start = end
	}
	return u.to[:n+2]
}

// decide sets the state of the members of component c.
func (u *unitKnown) decide(s *Splicer, src *Types, c int32, members []uint32, lookups bool) {
	set := func(st uint8) {
		for _, x := range members {
			u.state[x] = st
		}
	}
	if len(members) > maxKnownCycle {
		set(knownOpaque)
		return
	}
	for _, x := range members {
		w := src.typeAt(int(x - 1))
		switch infoKind(w[1]) {
		case KindVar, KindDatasec: // libbpf keeps every one
			set(knownOpaque)
			return

		case KindStruct, KindUnion, KindArray, KindTypedef, KindFwd:
			if k := infoKind(w[1]); k != KindArray && s.known.suspect[defKey(s.remap[w[0]], k)] {
				set(knownOpaque) // see noteDefinitions
				return
			}
			if u.g.holdsDecl(x, w) {
				set(knownOpaque)
				return
			}
		case KindEnum, KindEnum64:
			// libbpf maps an enum declaration to the first compatible
			// enum, and a full enum takes over the declarations of its
			// name that came before it (the last one wins): neither may
			// go unseen.
			if infoVlen(w[1]) == 0 || u.declaredBefore(s, w[0], x) {
				set(knownOpaque)
				return
			}
		}
	}
	if len(members) == 1 {
		x := members[0]
		w := u.translate(src, x, c, s.remap)
		switch {
		case len(u.internal) > 0: // refers to itself: a cycle of one
		case w == knownOpaque:
			u.state[x] = knownOpaque
			return
		case w == knownKept || !lookups:
			u.state[x] = knownKept
			return
		default:
			u.state[x] = knownKept
			h := hashWords(0, u.buf)
			if g := s.known.table.find(h, func(id uint32) bool { return equalWords(s.dst.raw(TypeID(id)), u.buf) }); g != 0 {
				u.state[x], u.to[x] = knownDropped, g
			}
			return
		}
	}
	if u.selfSimilar(src, members) || !hasPtr(src, members) {
		set(knownOpaque)
		return
	}
	worst := knownDropped
	for _, x := range members {
		switch w := u.translate(src, x, c, s.remap); {
		case w == knownOpaque:
			worst = knownOpaque
		case w == knownKept && worst != knownOpaque:
			worst = knownKept
		}
	}
	if worst == knownOpaque {
		set(knownOpaque)
		return
	}
	set(knownKept)
	if worst == knownKept || !lookups {
		return
	}
	root := slices.Min(members)
	words := func(x uint32) ([]uint32, []int) {
		u.translate(src, x, c, s.remap)
		return u.buf, u.internal
	}
	h := u.cycleHash(root, words)
	if g := s.known.table.find(h, func(id uint32) bool { return u.pairWalk(s, src, c, root, id, len(members)) }); g != 0 {
		for _, x := range members {
			u.state[x], u.to[x] = knownDropped, u.pair[x]
		}
	}
}

// Names with several definitions. libbpf resolves a FWD, and matches a
// typedef or struct through one, to the first definition of its name
// that a struct pass walk pairs it with; when a name has several
// definitions, dropping copies changes which walk comes first. So no type
// is dropped whose closure holds a struct, union, typedef or FWD of a name
// already defined twice (noteDefinitions: definitions differing in their
// words but for references, a prediction); and since a second definition
// may come in a later unit, after copies holding the name were dropped,
// Splicer.KnownUnsure checks the result for names that ended with
// several definitions in a dropped closure: the encode is then done again
// without dropping.

// noteDefinitions records the unit's struct, union and typedef
// definitions before its types are decided.
func (k *knownSplice) noteDefinitions(u *unitKnown, f *Fragment, remap []uint32) {
	if k.defs == nil {
		k.defs, k.suspect = map[uint64]uint64{}, map[uint64]bool{}
	}
	src := f.Types
	for i := range src.offs {
		w := src.typeAt(i)
		kind, ok := definition(w)
		if !ok {
			continue
		}
		name := defKey(remap[w[0]], kind)
		h, ok := f.defHashOf(i)
		if !ok {
			u.buf = shallowWords(u.buf, w, remap)
			h = hashWords(0, u.buf)
		}
		if first, ok := k.defs[name]; !ok {
			k.defs[name] = h
		} else if first != h {
			k.suspect[name] = true
		}
	}
}

// definition returns the kind of w (one type) and whether noteDefinitions
// records it: a struct, union or typedef with a name.
func definition(w []uint32) (Kind, bool) {
	k := infoKind(w[1])
	return k, (k == KindStruct || k == KindUnion || k == KindTypedef) && w[0] != 0
}

// defKey is the key of a definition's name (destination offset) in
// knownSplice.defs: structs and unions share one namespace, as FWDs
// resolve to either; typedefs have their own.
func defKey(name uint32, k Kind) uint64 {
	key := uint64(name) << 1
	if k == KindTypedef {
		key |= 1
	}
	return key
}

// shallowWords copies w to dst (reused) with its references zeroed and,
// with remap, its names mapped through it: a type's words but for what it
// refers to.
func shallowWords(dst, w, remap []uint32) []uint32 {
	dst = append(dst[:0], w...)
	k := infoKind(w[1])
	l := idFields(k)
	for _, f := range l.fixed[:l.nfixed] {
		dst[f] = 0
	}
	if l.stride != 0 {
		for i := headerWords + int(l.elem); i < len(dst); i += int(l.stride) {
			dst[i] = 0
		}
	}
	if remap != nil {
		l = strFields(k)
		for _, f := range l.fixed[:l.nfixed] {
			dst[f] = remap[dst[f]]
		}
		if l.stride != 0 {
			for i := headerWords + int(l.elem); i < len(dst); i += int(l.stride) {
				dst[i] = remap[dst[i]]
			}
		}
	}
	return dst
}

func (k *knownSplice) markTarget(id uint32) {
	for int(id/64) >= len(k.targets) {
		k.targets = append(k.targets, 0)
	}
	k.targets[id/64] |= 1 << (id % 64)
}

// KnownUnsure reports whether the dedup out of the spliced types might
// differ from that of all the types, had none been dropped: whether a
// dropped type went to a type whose closure holds a struct, union or FWD
// of a name that out holds several structs or unions of, or a typedef of
// a name it holds several typedefs of. It returns the first such name.
func (s *Splicer) KnownUnsure(out *Types) (string, bool) {
	k := s.known
	if k == nil || k.dropped == 0 {
		return "", false
	}
	names := ambiguousNames(out)
	if len(names[0])+len(names[1]) == 0 {
		return "", false
	}
	t := s.dst
	first := uint32(t.FirstID())
	n := uint32(t.NextID())
	// A walk over the spliced types from every target; a type seen from
	// one target need not be walked again from another.
	seen := make([]uint64, (n-first)/64+1)
	var stack []uint32
	push := func(id uint32) {
		if id < first || id >= n {
			return
		}
		b := id - first
		if seen[b/64]&(1<<(b%64)) == 0 {
			seen[b/64] |= 1 << (b % 64)
			stack = append(stack, id)
		}
	}
	for i, word := range k.targets {
		for word != 0 {
			push(uint32(i*64) + uint32(bits.TrailingZeros64(word)))
			word &= word - 1
		}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			w := t.raw(TypeID(x))
			kind := infoKind(w[1])
			if ns, ok := nameSpace(kind); ok && w[0] != 0 {
				if nm := t.Strings.String(w[0]); names[ns][nm] {
					return nm, true
				}
			}
			forEachFieldIndex(w, idFields(kind), func(j int) { push(w[j]) })
		}
	}
	return "", false
}

// nameSpace returns the namespace of a named kind for ambiguousNames: 0
// for structs, unions and FWDs (which resolve to either), 1 for typedefs.
func nameSpace(k Kind) (int, bool) {
	switch k {
	case KindStruct, KindUnion, KindFwd:
		return 0, true
	case KindTypedef:
		return 1, true
	}
	return 0, false
}

// ambiguousNames returns, per nameSpace, the names t holds more than one
// struct or union of, and more than one typedef of.
func ambiguousNames(t *Types) [2]map[string]bool {
	var seen, names [2]map[string]bool
	for ns := range names {
		seen[ns], names[ns] = map[string]bool{}, map[string]bool{}
	}
	for id := t.FirstID(); id < t.NextID(); id++ {
		kind := t.Kind(id)
		ns, ok := nameSpace(kind)
		if !ok || kind == KindFwd {
			continue
		}
		if nm := t.Name(id); nm != "" {
			if seen[ns][nm] {
				names[ns][nm] = true
			}
			seen[ns][nm] = true
		}
	}
	return names
}

// selfSimilar reports whether two types of a cycle have the same words but
// for their references. libbpf may find such types equivalent to each
// other and fold the cycle into fewer types, in which case a later copy
// of the cycle need not fold the same way (its members compared against
// the folded ones in another order): the cycle is never dropped nor
// remembered.
func (u *unitKnown) selfSimilar(src *Types, members []uint32) bool {
	for i, a := range members {
		u.buf = shallowWords(u.buf, src.typeAt(int(a-1)), nil)
		for _, b := range members[i+1:] {
			u.shallow = shallowWords(u.shallow, src.typeAt(int(b-1)), nil)
			if equalWords(u.buf, u.shallow) {
				return true
			}
		}
	}
	return false
}

// holdsDecl reports whether a struct's or union's member, or an array's
// element, is (through typedefs and qualifiers) a FWD: a value of a type
// only declared, which no C program holds, and under which libbpf's
// FWD-to-struct equivalence makes copies fold differently.
func holdsDecl(src *Types, w []uint32) bool {
	n := uint32(src.Len())
	isDecl := func(r uint32) bool {
		for steps := 0; r >= 1 && r <= n && steps < 32; steps++ {
			v := src.typeAt(int(r - 1))
			switch infoKind(v[1]) {
			case KindFwd:
				return true
			case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag:
				r = v[2]
			default:
				return false
			}
		}
		return false
	}
	if infoKind(w[1]) == KindArray {
		return isDecl(w[3])
	}
	for i := headerWords + 1; i < len(w); i += 3 {
		if isDecl(w[i]) {
			return true
		}
	}
	return false
}

// hasPtr reports whether one of members is a pointer. C types refer to
// themselves only through pointers; a cycle without one (a struct holding
// itself) is no C program's, and is not dropped.
func hasPtr(src *Types, members []uint32) bool {
	for _, x := range members {
		if infoKind(src.typeAt(int(x - 1))[1]) == KindPtr {
			return true
		}
	}
	return false
}

// enumDecls notes the first local id of each name (fragment string
// index) that the unit declares an enum by (ENUM or ENUM64 without
// values).
func (u *unitKnown) enumDecls(s *Splicer, src *Types) {
	if u.decls == nil {
		u.decls = map[uint32]uint32{}
	}
	clear(u.decls)
	for i := range src.offs {
		w := src.typeAt(i)
		if k := infoKind(w[1]); (k == KindEnum || k == KindEnum64) && infoVlen(w[1]) == 0 {
			name := s.remap[w[0]]
			if _, ok := u.decls[name]; !ok {
				u.decls[name] = uint32(i + 1)
			}
		}
	}
}

// declaredBefore reports whether an enum of the fragment name name was
// declared (without values) before local type x: in an earlier unit or
// earlier in this one.
func (u *unitKnown) declaredBefore(s *Splicer, name, x uint32) bool {
	g := s.remap[name]
	if s.known.enumDecls[g] {
		return true
	}
	first, ok := u.decls[g]
	return ok && first < x
}

// collides reports whether two dropped types of the unit go to the same
// earlier type without being identical the way libbpf tells copies apart
// (btf_dedup_identical_types, to the depth it uses): libbpf compares such
// copies as distinct types where the dropped ones have become one.
func (u *unitKnown) collides(s *Splicer, src *Types) bool {
	if u.seen == nil {
		u.seen = map[uint32]uint32{}
	}
	clear(u.seen)
	f := newFragmentSource(src)
	for x := uint32(1); x <= u.n; x++ {
		if u.state[x] != knownDropped {
			continue
		}
		if first, ok := u.seen[u.to[x]]; ok {
			if !identicalTypes(f, first, x, identicalDepth) {
				return true
			}
			continue
		}
		u.seen[u.to[x]] = x
	}
	return false
}

// fragmentSource gives a fragment's types to identicalTypes: local ids,
// void, and the array index type (n+1) as a type of no kind, identical
// only to itself.
type fragmentSource struct {
	t            *Types
	void, noKind [headerWords]uint32
}

func newFragmentSource(t *Types) *fragmentSource {
	return &fragmentSource{t: t, noKind: [headerWords]uint32{0, 31 << 24, 0}}
}

func (f *fragmentSource) typ(id uint32) []uint32 {
	switch {
	case id == 0:
		return f.void[:]
	case int(id) > f.t.Len():
		return f.noKind[:]
	}
	return f.t.typeAt(int(id - 1))
}

func (f *fragmentSource) limit() uint32 { return uint32(f.t.Len()) + 2 }

// pairWalk reports whether the cycle of component c (size members, from
// root) and the types reached from global type g are the same: walked
// side by side, every pair of types has the same words once references
// leaving the cycle are global, and references inside it pair the
// cycle's types one to one with global types. u.pair holds the pairs.
func (u *unitKnown) pairWalk(s *Splicer, src *Types, c int32, root, g uint32, size int) bool {
	if u.pair == nil {
		u.pair, u.rev = map[uint32]uint32{}, map[uint32]uint32{}
	}
	clear(u.pair)
	clear(u.rev)
	u.pair[root], u.rev[g] = g, root
	u.walk = append(u.walk[:0], root)
	for i := 0; i < len(u.walk); i++ {
		x := u.walk[i]
		gw := s.dst.raw(TypeID(u.pair[x]))
		u.translate(src, x, c, s.remap)
		if len(gw) != len(u.buf) {
			return false
		}
		in := u.internal
		for j, w := range u.buf {
			if len(in) > 0 && in[0] == j {
				in = in[1:]
				gr := gw[j]
				if p, ok := u.pair[w]; ok {
					if p != gr {
						return false
					}
					continue
				}
				if _, taken := u.rev[gr]; taken {
					return false
				}
				u.pair[w], u.rev[gr] = gr, w
				u.walk = append(u.walk, w)
				continue
			}
			if w != gw[j] {
				return false
			}
		}
	}
	return len(u.walk) == size
}

// learn remembers the kept members of component c, whose global ids are
// set: a type by the hash of its words, a cycle's types each by the hash
// of the cycle walked from it.
func (u *unitKnown) learn(s *Splicer, src *Types, c int32, members []uint32) {
	if u.state[members[0]] != knownKept {
		return
	}
	t := &s.known.table
	words := func(x uint32) ([]uint32, []int) {
		u.translate(src, x, c, s.remap)
		return u.buf, u.internal
	}
	if len(members) == 1 && !u.selfRef(src, members[0]) {
		x := members[0]
		t.add(hashWords(0, s.dst.raw(TypeID(u.to[x]))), u.to[x])
		return
	}
	for _, x := range members {
		t.add(u.cycleHash(x, words), u.to[x])
	}
}

// appendKept appends the kept CU types of src to s.dst: names through
// s.remap, references through u.to.
func (s *Splicer) appendKept(src *Types) {
	u := &s.known.u
	dst := s.dst
	for x := uint32(1); x <= u.n; x++ {
		if u.state[x] == knownDropped {
			continue
		}
		w := src.typeAt(int(x - 1))
		base := len(dst.words)
		dst.offs = append(dst.offs, uint32(base))
		dst.words = append(dst.words, w...)
		nw := dst.words[base:]
		k := infoKind(nw[1])
		l := strFields(k)
		for _, f := range l.fixed[:l.nfixed] {
			nw[f] = s.remap[nw[f]]
		}
		if l.stride != 0 {
			for i := headerWords + int(l.elem); i < len(nw); i += int(l.stride) {
				nw[i] = s.remap[nw[i]]
			}
		}
		l = idFields(k)
		for _, f := range l.fixed[:l.nfixed] {
			nw[f] = u.to[nw[f]]
		}
		if l.stride != 0 {
			for i := headerWords + int(l.elem); i < len(nw); i += int(l.stride) {
				nw[i] = u.to[nw[i]]
			}
		}
	}
}

// selfRef reports whether local type x refers to itself.
func (u *unitKnown) selfRef(src *Types, x uint32) bool {
	start := len(u.refBuf)
	refs := localRefs(u.refBuf, src, x, u.n)
	u.refBuf = refs[:start]
	for _, r := range refs[start:] {
		if r == x {
			return true
		}
	}
	return false
}
