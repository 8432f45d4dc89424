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

// sortStatesByElf sorts states by ELF function index, stably: a counting
// sort (the indexes are dense), much cheaper than a comparison sort moving
// 100,000 states of the kernel around.
func sortStatesByElf(states []State) {
	if len(states) < 2 {
		return
	}
	hi := int32(0)
	for i := range states {
		if states[i].elf < 0 { // not an index: no counting
			slices.SortStableFunc(states, func(a, b State) int { return cmp.Compare(a.elf, b.elf) })
			return
		}
		hi = max(hi, states[i].elf)
	}
	next := make([]int, hi+2) // where the states of each index go
	for i := range states {
		next[states[i].elf+1]++
	}
	for k := 1; k < len(next); k++ {
		next[k] += next[k-1]
	}
	sorted := make([]State, len(states))
	for i := range states {
		e := states[i].elf
		sorted[next[e]] = states[i]
		next[e]++
	}
	copy(states, sorted)
}

// Group sorts the saved states by base name (stably, so unit order is
// kept inside a group, as glibc's qsort does for pahole) and combines each
// group's flags and prototypes (spec §2.7 steps 1-5). The states, global
// (Globalize), index elf's functions and their types are in types; set's
// true_signature says whether true signatures apply to every group.
func Group(types *btf.Types, elf *loader.ElfFuncs, states []State, set features.Set) *Groups {
	sortStatesByElf(states)
	gs := &Groups{types: types, elf: elf, set: set}
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
