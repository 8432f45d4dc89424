package btf

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// fragmentOf turns a unit built by the dedup tests' generators (local ids
// 1..n, names in its own string table) into a Splicer's fragment.
func fragmentOf(u *Types) *Fragment {
	t := NewTypes(NewStrings())
	t.words = append([]uint32(nil), u.words...)
	t.offs = append([]uint32(nil), u.offs...)
	index := map[uint32]uint32{}
	var strs []string
	for i := range t.offs {
		w := t.typeAt(i)
		forEachFieldIndex(w, strFields(infoKind(w[1])), func(j int) {
			off := w[j]
			if off == 0 {
				return
			}
			if _, ok := index[off]; !ok {
				strs = append(strs, u.Strings.String(off))
				index[off] = uint32(len(strs))
			}
			w[j] = index[off]
		})
	}
	return &Fragment{Types: t, Tail: NewTypes(NewStrings()), Strs: strs, HasArray: true}
}

// aliasStrings lays the fragments' distinct names in one string section
// and makes their Strs point into it; it returns the section.
func aliasStrings(frags []*Fragment) []byte {
	at := map[string]int{}
	sec := []byte{0}
	for _, f := range frags {
		for _, str := range f.Strs {
			if _, ok := at[str]; !ok && str != "" {
				at[str] = len(sec)
				sec = append(append(sec, str...), 0)
			}
		}
	}
	for _, f := range frags {
		for i, str := range f.Strs {
			if str != "" {
				f.Strs[i] = unsafe.String(&sec[at[str]], len(str))
			}
		}
	}
	return sec
}

// TestDropKnownDedupsAlike: splicing units with known types dropped gives
// the dedup of the units spliced whole, byte for byte, unless
// KnownUnsure says it might not or the pipelined dedup started over (an
// encode then runs again without dropping): on units cut from shared types (with forward declarations,
// duplicate arrays and cycles) and on random units, each spliced twice,
// split or not. The seeds are the first 10,000 and two (75600, 115988)
// whose units give another dedup once copies are dropped: KnownUnsure
// must say so there. (A run over 200,000 more seeds found no other.)
func TestDropKnownDedupsAlike(t *testing.T) {
	seeds := []uint64{75600, 115988}
	for s := range uint64(10000) {
		seeds = append(seeds, s)
	}
	var dropping, compared, unsure int
	for _, seed := range seeds {
		base := seedBase(t, seed)
		units := knownTestUnits(seed)
		splice := func(drop bool) (*Splicer, *Types) {
			dst := NewTypes(NewStrings())
			if base != nil {
				dst = NewSplitTypes(base)
			}
			frags := make([]*Fragment, len(units))
			for i, u := range units {
				frags[i] = fragmentOf(u)
			}
			// Seeds 2 mod 3 name their strings in a string section, as
			// an encode's walkers do, and the splicer shares its names.
			var secs *StringSections
			var names *NameHints
			if drop && seed%3 == 2 {
				secs, names = IndexStringSections(aliasStrings(frags)), &NameHints{}
			}
			s := NewSplicer(dst, secs)
			if drop {
				s.DropKnown()
			}
			if names != nil {
				s.ShareNames(names)
			}
			var prev *Fragment
			for _, f := range frags {
				if drop && seed%3 != 1 { // as an encode's workers do
					f.PrepareKnown(prev, names)
					prev = f
				}
				if _, _, err := s.Add(f); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
			return s, dst
		}
		dedup := func(dst *Types) ([]byte, *Types) {
			out, err := Dedup(dst)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			raw, err := out.Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			return raw, out
		}
		_, all := splice(false)
		want, _ := dedup(all)
		s, kept := splice(true)
		got, out := dedup(kept)
		if kept.Len()+s.Dropped() != all.Len() {
			t.Errorf("seed %d: %d types kept and %d dropped, of %d", seed, kept.Len(), s.Dropped(), all.Len())
		}
		if s.Dropped() > 0 {
			dropping++
		}
		// An encode's dedup is pipelined; one that starts over goes in
		// libbpf's order on the spliced types only, and the encode then
		// runs again without dropping, as when KnownUnsure says so.
		piped, err := StartPipelinedDedup(kept, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := piped.Advance(kept.View()); err != nil {
			t.Fatal(err)
		}
		if _, err := piped.Finish(); err != nil {
			t.Fatal(err)
		}
		if piped.Restarted != "" {
			unsure++
			continue
		}
		if name, ok := s.KnownUnsure(out); ok {
			unsure++
			if seed >= 10000 {
				t.Logf("seed %d: unsure (%s), as it must be", seed, name)
			}
			continue
		}
		if seed >= 10000 {
			t.Errorf("seed %d: dropping copies changes this dedup, and KnownUnsure does not say so", seed)
		}
		compared++
		if !bytes.Equal(got, want) {
			t.Errorf("seed %d: the dedup of the units with %d known types dropped differs from theirs whole", seed, s.Dropped())
		}
	}
	t.Logf("%d seeds: %d dropped types, %d compared, %d unsure", len(seeds), dropping, compared, unsure)
	if dropping < len(seeds)/2 || compared < len(seeds)/5 {
		t.Errorf("types dropped in %d seeds, dedups compared in %d, of %d: the test hardly tests", dropping, compared, len(seeds))
	}
}

// knownTestUnits returns the units of a seed: even seeds cut ten units
// from shared types (dedup_synth_test.go), odd ones make ten random units
// and splice each twice.
func knownTestUnits(seed uint64) []*Types {
	var units []*Types
	if seed%2 == 0 {
		s := newCUSynth(randomCUs(seed, 3), seed)
		s.postOrder = seed%4 == 0
		for range 10 {
			units = append(units, s.unit())
		}
		return units
	}
	rng := rand.New(rand.NewPCG(seed, 0xd1ce))
	for range 10 {
		u := randomCU(rng)
		units = append(units, u, u)
	}
	return units
}

// TestDropKnownMalformedUnit: a fragment with a reference past its index
// type or a name past its strings is refused by a
// Splicer that drops known types as by one that does not (an error, no
// panic), whether PrepareKnown found its cycles first or Add does.
func TestDropKnownMalformedUnit(t *testing.T) {
	good := func() *Fragment {
		u := NewTypes(NewStrings())
		i := u.AddInt(1, 4, 1, 0, 32)
		p := u.AddRef(KindPtr, 0, 3)
		u.AddStruct(false, 2, 8, []Member{{Name: 3, Type: p}, {Name: 0, Type: i, BitOffset: 32}})
		return &Fragment{Types: u, Tail: NewTypes(NewStrings()), Strs: []string{"int", "s", "next"}}
	}
	cases := map[string]func(f *Fragment){
		"reference past the index type": func(f *Fragment) { f.Types.words[len(f.Types.words)-2] = 9 },
		"name past the strings":         func(f *Fragment) { f.Types.words[0] = 7 },
	}
	for name, spoil := range cases {
		for _, prepare := range []bool{false, true} {
			for _, drop := range []bool{false, true} {
				f := good()
				spoil(f)
				if prepare {
					f.PrepareKnown(nil, nil)
				}
				s := NewSplicer(NewTypes(NewStrings()), nil)
				if drop {
					s.DropKnown()
				}
				if _, _, err := s.Add(good()); err != nil {
					t.Fatalf("%s: the well-formed unit: %v", name, err)
				}
				if _, _, err := s.Add(f); err == nil {
					t.Errorf("%s (prepared %v, dropping %v): spliced without an error", name, prepare, drop)
				}
			}
		}
	}
}
