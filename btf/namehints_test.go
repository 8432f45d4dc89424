package btf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// aliasedName returns the string at off of sec, aliasing sec as the names
// a walker reads from .debug_str do.
func aliasedName(sec []byte, off int) string {
	n := bytes.IndexByte(sec[off:], 0)
	return unsafe.String(&sec[off], n)
}

// namedFragment returns a fragment with one int per name.
func namedFragment(names []string) *Fragment {
	types := NewTypes(NewStrings())
	for i := range names {
		types.AddInt(uint32(i+1), 4, IntSigned, 0, 32)
	}
	return &Fragment{Types: types, Tail: NewTypes(NewStrings()), Strs: names, IntID: 1}
}

// TestPremap: a fragment's names (PrepareKnown) get the offsets the splicer gave the same
// places of the string section, and none for a place the splicer has not
// met (a name not yet interned, the tail of an interned one, a name outside
// the sections), or before the splicer shares its caches.
func TestPremap(t *testing.T) {
	sec := []byte("\x00foo_bar\x00baz\x00qux\x00")
	fooBar, bar, baz, qux := aliasedName(sec, 1), aliasedName(sec, 5), aliasedName(sec, 9), aliasedName(sec, 13)
	heap := string([]byte("baz")) // same content, not in the section
	s := NewSplicer(NewTypes(NewStrings()), IndexStringSections(sec))
	var h NameHints

	first := namedFragment([]string{fooBar, baz})
	first.PrepareKnown(nil, &h)
	if len(first.premapped) != 0 {
		t.Fatalf("before ShareNames: premapped %v, want none", first.premapped)
	}
	s.ShareNames(&h)
	first.PrepareKnown(nil, &h)
	if !slices.Equal(first.premapped, []uint32{0, 0}) {
		t.Fatalf("before any splice: premapped %v, want [0 0]", first.premapped)
	}
	if _, _, err := s.Add(first); err != nil {
		t.Fatal(err)
	}
	second := namedFragment([]string{baz, bar, qux, heap, fooBar})
	second.PrepareKnown(first, &h)
	want := []uint32{s.Intern(baz) + 1, 0, 0, 0, s.Intern(fooBar) + 1}
	if !slices.Equal(second.premapped, want) {
		t.Errorf("premapped %v, want %v", second.premapped, want)
	}
	if first.premapped != nil {
		t.Error("PrepareKnown did not take over the reused fragment's names buffer")
	}
}

// TestPremapSplicesAlike: splicing fragments whose names were premapped
// (some before the units ahead of them were spliced, as a worker running
// ahead does) gives the same types and strings as splicing without, on
// random sections whose runs hold several names (tails of one another).
func TestPremapSplicesAlike(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var sec []byte
		var starts []int
		for range 1 + rng.IntN(40) {
			sec = append(sec, 0)
			word := make([]byte, 1+rng.IntN(6))
			for i := range word {
				word[i] = byte('a' + rng.IntN(3))
			}
			at := len(sec)
			sec = append(sec, word...)
			for k := range word { // a name and its tails
				starts = append(starts, at+k)
			}
		}
		sec = append(sec, 0)
		var frags [][]string
		for range 1 + rng.IntN(8) {
			seen := map[int]bool{}
			var names []string
			for range 1 + rng.IntN(10) {
				off := starts[rng.IntN(len(starts))]
				if seen[off] {
					continue
				}
				seen[off] = true
				if rng.IntN(8) == 0 {
					names = append(names, string([]byte(aliasedName(sec, off)))) // a copy
				} else {
					names = append(names, aliasedName(sec, off))
				}
			}
			frags = append(frags, names)
		}
		splice := func(premap bool) []byte {
			secs := IndexStringSections(sec)
			dst := NewTypes(NewStrings())
			s := NewSplicer(dst, secs)
			var h NameHints
			s.ShareNames(&h)
			fs := make([]*Fragment, len(frags))
			for i, names := range frags {
				fs[i] = namedFragment(names)
			}
			ahead := 0 // fragments premapped so far
			for i, f := range fs {
				if premap {
					for ahead <= i || ahead < len(fs) && rng.IntN(2) == 0 {
						fs[ahead].PrepareKnown(nil, &h)
						ahead++
					}
				}
				if _, _, err := s.Add(f); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := dst.Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			return raw
		}
		without, with := splice(false), splice(true)
		if !bytes.Equal(without, with) {
			t.Fatalf("seed %d: spliced with premapped names differs from without (%s)", seed, fmt.Sprint(frags))
		}
	}
}

// TestPrepareKnownMatchesSplicer: what PrepareKnown finds beside the splice
// is what the splicer would find itself: a definition's hash with its names
// mapped (noteDefinitions) equals the one from the splicer's own mapping,
// and the structs, unions and arrays of the components it may drop that
// hold a declaration by value are those holdsDecl names; on the units of
// TestDropKnownDedupsAlike, their names laid in a string section.
func TestPrepareKnownMatchesSplicer(t *testing.T) {
	var hashed, decls int
	for seed := range uint64(300) {
		units := knownTestUnits(seed)
		frags := make([]*Fragment, len(units))
		for i, u := range units {
			frags[i] = fragmentOf(u)
		}
		s := NewSplicer(NewTypes(NewStrings()), IndexStringSections(aliasStrings(frags)))
		var names NameHints
		s.ShareNames(&names)
		for _, f := range frags {
			f.PrepareKnown(nil, &names)
			g := f.graph
			if !g.ok {
				continue
			}
			start := int32(0)
			for _, end := range g.compEnd {
				for _, x := range g.comps[start:end] {
					w := f.Types.typeAt(int(x - 1))
					k := infoKind(w[1])
					want := end-start <= maxKnownCycle && (k == KindStruct || k == KindUnion || k == KindArray) && holdsDecl(f.Types, w)
					if got := g.holdsDecl(x, w); !g.declDone || got != want {
						t.Fatalf("seed %d: type %d: holdsDecl %v (found beside: %v), want %v", seed, x, got, g.declDone, want)
					}
					if want {
						decls++
					}
				}
				start = end
			}
			if _, _, err := s.Add(f); err != nil {
				t.Fatal(err)
			}
			for i := range f.Types.Len() {
				h, ok := f.defHashOf(i)
				if !ok {
					continue
				}
				if want := hashWords(0, shallowWords(nil, f.Types.typeAt(i), s.remap)); h != want {
					t.Fatalf("seed %d: type %d: definition hash %#x, the splicer's %#x", seed, i+1, h, want)
				}
				hashed++
			}
		}
	}
	if hashed == 0 || decls == 0 {
		t.Fatalf("%d definitions hashed, %d declarations held: the test compared nothing", hashed, decls)
	}
	t.Logf("%d definitions hashed, %d declarations held", hashed, decls)
}
