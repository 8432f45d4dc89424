package functions

import (
	"cmp"
	"slices"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/loader"
)

// Groups is the saved states of an input grouped by ELF base name, in the
// ELF functions' (sorted name) order, each group's flags and prototypes
// combined and its canonical state chosen: what pahole has before it
// emits functions (spec §2.7 steps 1-5). Group i's facts have ID i.
type Groups struct {
	types *btf.Types // the states' types; Emit appends to it
	elf   *loader.ElfFuncs
	set   features.Set
	list  []group
}

// group is the states of one ELF base name, in save order.
type group struct {
	elf      int32
	states   []State
	canon    int // index of the canonical state
	trueSig  int // index of the true-signature state, -1
	mismatch string
	// trueSignature: true signatures apply to the group, by the feature or
	// because a true_signature rule selected it.
	trueSignature bool
}

// sortedByElf returns the states of units, one slice after the other,
// sorted by ELF function index, stably, in one new slice: a counting sort
// (the indexes are dense), much cheaper than a comparison sort moving
// 100,000 states of the kernel around, and no concatenation before it.
func sortedByElf(units [][]State) []State {
	n, hi := 0, int32(0)
	dense := true
	for _, states := range units {
		n += len(states)
		for i := range states {
			if states[i].elf < 0 { // not an index: no counting
				dense = false
			}
			hi = max(hi, states[i].elf)
		}
	}
	sorted := make([]State, n)
	if !dense {
		sorted = sorted[:0]
		for _, states := range units {
			sorted = append(sorted, states...)
		}
		slices.SortStableFunc(sorted, func(a, b State) int { return cmp.Compare(a.elf, b.elf) })
		return sorted
	}
	next := make([]int, hi+2) // where the states of each index go
	for _, states := range units {
		for i := range states {
			next[states[i].elf+1]++
		}
	}
	for k := 1; k < len(next); k++ {
		next[k] += next[k-1]
	}
	for _, states := range units {
		for i := range states {
			e := states[i].elf
			sorted[next[e]] = states[i]
			next[e]++
		}
	}
	return sorted
}

// Group sorts the saved states by base name (stably, so unit order is
// kept inside a group, as glibc's qsort does for pahole) and combines each
// group's flags and prototypes (spec §2.7 steps 1-5). units holds each
// unit's states (Save), in unit order; the states, global (Globalize),
// index elf's functions and their types are in types; set's
// true_signature says whether true signatures apply to every group.
func Group(types *btf.Types, elf *loader.ElfFuncs, units [][]State, set features.Set) *Groups {
	states := sortedByElf(units)
	n := 0 // the groups: appending them one by one would allocate five times their size
	for i := range states {
		if i == 0 || states[i].elf != states[i-1].elf {
			n++
		}
	}
	gs := &Groups{types: types, elf: elf, set: set, list: make([]group, 0, n)}
	for i := 0; i < len(states); {
		j := i + 1
		for j < len(states) && states[j].elf == states[i].elf {
			j++
		}
		g := group{elf: states[i].elf, states: states[i:j:j], trueSig: -1, trueSignature: set.TrueSignature}
		combine(types, &g)
		g.choose()
		gs.list = append(gs.list, g)
		i = j
	}
	return gs
}

// Len is the number of groups.
func (gs *Groups) Len() int { return len(gs.list) }

// choose picks the group's true-signature state (spec §2.7 step 4), if
// true signatures apply to it, and its canonical state (step 5).
func (g *group) choose() {
	g.trueSig = -1
	if g.trueSignature {
		for k := range g.states {
			s := &g.states[k]
			if s.trueSym >= 0 && !s.accU && !s.accC {
				g.trueSig = k
				break
			}
		}
	}
	g.canon = canonical(g)
}
