package btf

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// pipeUnits runs the dedup of units as an encode does: each unit appended
// to a fresh table and taken in from a View, then, with early, a Fold
// (which must succeed unless the dedup is going to start over), then the
// reference pass (StartRefs). It returns the table, the dedup and what the
// early Fold released (-1 without it).
func pipeUnits(t *testing.T, units []*Types, early bool) (*Types, *Deduplication, int) {
	t.Helper()
	piped := NewTypes(NewStrings())
	s, err := StartPipelinedDedup(piped, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if err := piped.Append(u, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Advance(piped.View()); err != nil {
			t.Fatal(err)
		}
	}
	released := -1
	if early {
		before := snapshotTypes(piped)
		types, n := s.Fold()
		switch {
		case s.d.unsure != "" && types != -1:
			t.Fatalf("Fold after the last batch of a dedup that starts over folded %d types, want -1", types)
		case s.d.unsure == "" && types < 0:
			t.Fatalf("Fold after the last batch did nothing, want it done")
		case types >= 0:
			released = n
			if changed := foldsToEquivalent(t, "after the last batch", before, piped); changed > types {
				t.Fatalf("Fold after the last batch folded %d types, but %d read otherwise", types, changed)
			}
			if again, _ := s.Fold(); again != -1 {
				t.Fatalf("a second Fold folded %d types, want -1", again)
			}
		}
	}
	if err := s.StartRefs(); err != nil {
		t.Fatal(err)
	}
	return piped, s, released
}

// countFolded counts the types a fold reads as others.
func countFolded(fold []uint32) int {
	n := 0
	for _, c := range fold {
		if c != 0 {
			n++
		}
	}
	return n
}

// snapshotTypes copies the words each own type of t reads as now.
func snapshotTypes(t *Types) [][]uint32 {
	out := make([][]uint32, t.Len())
	for i := range out {
		out[i] = append([]uint32(nil), t.raw(t.FirstID()+TypeID(i))...)
	}
	return out
}

// foldsToEquivalent fails t unless every type of before (what the table
// read before Fold) reads, in after, as an equivalent type: the same name,
// the same kind but where a forward declaration reads as its struct or
// union and an enum declaration (an ENUM or ENUM64 without values) as its
// enum of either size.
func foldsToEquivalent(t *testing.T, what string, before [][]uint32, after *Types) (folded int) {
	t.Helper()
	for i, w := range before {
		id := after.FirstID() + TypeID(i)
		got := after.Type(id)
		was := Type{ID: id, w: w}
		if equalWords(got.w, w) {
			continue
		}
		folded++
		wk, gk := was.Kind(), got.Kind()
		enum := func(k Kind) bool { return k == KindEnum || k == KindEnum64 }
		kindOK := wk == gk ||
			wk == KindFwd && (gk == KindStruct || gk == KindUnion) ||
			enum(wk) && was.Vlen() == 0 && enum(gk)
		if !kindOK || was.NameOff() != got.NameOff() {
			t.Fatalf("%s: type %d was %v %q, reads folded as %v %q", what, id,
				wk, after.Strings.String(was.NameOff()), gk, after.Strings.String(got.NameOff()))
		}
	}
	return folded
}

// TestDedupFoldMatchesDedup: folding after the reference pass changes
// nothing Finish makes (the function types appended after it read folded
// types), and every folded type reads as an equivalent one.
func TestDedupFoldMatchesDedup(t *testing.T) {
	const seeds = 200
	foldedSeeds, foldedTypes := 0, 0
	for seed := range uint64(seeds) {
		units := seedUnits(seed, 0xf01d)
		full := NewTypes(NewStrings())
		for _, u := range units {
			if err := full.Append(u, nil); err != nil {
				t.Fatal(err)
			}
		}
		want := dedupWithFuncs(t, seed, full)

		// Even seeds fold before the reference pass, as an encode does,
		// odd ones after it.
		early := seed%2 == 0
		piped, s, _ := pipeUnits(t, units, early)
		if !early {
			before := snapshotTypes(piped)
			types, _ := s.Fold()
			switch {
			case s.d.unsure != "" && types != -1:
				t.Fatalf("seed %d: Fold of a dedup that starts over folded %d types, want -1", seed, types)
			case s.d.unsure == "" && types < 0:
				t.Fatalf("seed %d: Fold after StartRefs did nothing, want it done", seed)
			case types >= 0:
				changed := foldsToEquivalent(t, fmt.Sprintf("seed %d", seed), before, piped)
				if changed > types {
					t.Fatalf("seed %d: Fold folded %d types, but %d read otherwise", seed, types, changed)
				}
				if again, _ := s.Fold(); again != -1 {
					t.Fatalf("seed %d: a second Fold folded %d types, want -1", seed, again)
				}
			}
		}
		if s.d.foldEnd != 0 {
			foldedSeeds++
			if countFolded(s.d.fold) > 0 {
				foldedTypes++
			}
		}
		appendFuncTypes(piped, 1+int(seed%4))
		got, err := s.Finish()
		if err != nil {
			t.Fatalf("seed %d: finish: %v", seed, err)
		}
		sameBTF(t, fmt.Sprintf("seed %d: folded dedup", seed), got, want)
	}
	if foldedSeeds < seeds/2 || foldedTypes < foldedSeeds*3/4 {
		t.Errorf("%d of %d seeds folded, %d of them some type: the fold is hardly tested",
			foldedSeeds, seeds, foldedTypes)
	}
}

// TestDedupFoldReleasesPages: units repeating one large struct fold onto
// the first unit's, whose pages go back to the system; the folded types
// still read as the struct (a read of a released page would find zeros,
// that is void), and the dedup is Dedup's.
func TestDedupFoldReleasesPages(t *testing.T) {
	unit := func() *Types {
		u := NewTypes(NewStrings())
		i32 := u.AddInt(u.Strings.Add("int"), 4, 1, 0, 32)
		fwd := u.AddFwd(u.Strings.Add("big"), false)
		ptr := u.AddRef(KindPtr, 0, fwd)
		var ms []Member
		for m := range 1200 {
			ms = append(ms, Member{Name: u.Strings.Add(fmt.Sprintf("m%d", m)), Type: i32, BitOffset: uint32(64 * m)})
		}
		ms = append(ms, Member{Name: u.Strings.Add("next"), Type: ptr, BitOffset: 64 * 1200})
		u.AddStruct(false, u.Strings.Add("big"), 8*1201, ms)
		return u
	}
	var units []*Types
	for range 40 {
		units = append(units, unit())
	}
	full := NewTypes(NewStrings())
	for _, u := range units {
		if err := full.Append(u, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := dedupWithFuncs(t, 0, full) // appends a function per type, as below

	total := 0 // what the Fold after StartRefs gives back
	for _, early := range []bool{false, true} {
		what := fmt.Sprintf("early fold %v", early)
		piped, s, released := pipeUnits(t, units, early)
		if !early {
			var types int
			if types, released = s.Fold(); types < 0 {
				t.Fatalf("%s: Fold after StartRefs did nothing, want it done", what)
			}
			total = released
		}
		// 39 copies of a 1201-member struct: about 560 KB of folded
		// words, all of them the struct pass's (INT and STRUCT). Before
		// the reference pass or after it, the fold gives back the whole
		// old array (the words it keeps are copied).
		if runtime.GOOS == "linux" {
			switch {
			case !early && released < 500<<10:
				t.Errorf("%s: Fold released %d bytes, want over 500 KiB", what, released)
			case early && released != total:
				t.Errorf("%s: Fold released %d bytes, want %d as after the reference pass", what, released, total)
			}
		}
		for id := piped.FirstID(); id < piped.NextID(); id++ {
			if k := piped.Kind(id); k == KindVoid {
				t.Fatalf("%s: type %d reads as void after Fold", what, id)
			}
		}
		last := piped.NextID() - 1 // the last unit's struct
		if k, n := piped.Kind(last), piped.Vlen(last); k != KindStruct || n != 1201 {
			t.Fatalf("%s: type %d reads as %v with %d members, want the 1201-member struct", what, last, k, n)
		}
		appendFuncTypes(piped, 1)
		got, err := s.Finish()
		if err != nil {
			t.Fatal(err)
		}
		sameBTF(t, what+": folded dedup with released pages", got, want)
	}
}

// TestDedupFoldRefused: Fold does nothing where the types are not all
// through the struct pass or the dedup is not an encode's pipeline on plain
// BTF, and no batch may come after it.
func TestDedupFoldRefused(t *testing.T) {
	piped := NewTypes(NewStrings())
	s, err := StartPipelinedDedup(piped, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Fold(); got != -1 {
		t.Errorf("Fold before any batch folded %d types, want -1", got)
	}
	rng := rand.New(rand.NewPCG(5, 0xf01d))
	for range 2 {
		if err := piped.Append(randomCU(rng), nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Advance(piped.View()); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.Fold(); got < 0 {
		t.Fatalf("Fold after two batches did nothing, want it done")
	}
	if err := piped.Append(randomCU(rng), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Advance(piped.View()); err == nil || !strings.Contains(err.Error(), "after Fold") {
		t.Errorf("Advance after Fold = %v, want an error", err)
	}

	plain, err := StartDedup(randomCUs(5, 3))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Structs(); err != nil {
		t.Fatal(err)
	}
	if got, _ := plain.Fold(); got != -1 {
		t.Errorf("Fold of a dedup that is not pipelined folded %d types, want -1", got)
	}

	base, err := Dedup(randomCUs(6, 3))
	if err != nil {
		t.Fatal(err)
	}
	split := NewSplitTypes(base)
	ss, err := StartPipelinedDedup(split, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := split.Append(randomCUs(7, 2), nil); err != nil {
		t.Fatal(err)
	}
	if err := ss.Advance(split.View()); err != nil {
		t.Fatal(err)
	}
	if err := ss.StartRefs(); err != nil {
		t.Fatal(err)
	}
	if got, _ := ss.Fold(); got != -1 {
		t.Errorf("Fold of split types folded %d types, want -1", got)
	}
}
