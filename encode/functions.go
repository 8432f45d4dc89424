package encode

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/loader"
)

// funcGroup is the states of one ELF base name, in save order.
type funcGroup struct {
	elf      int32
	states   []funcState
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
func sortStatesByElf(states []funcState) {
	if len(states) < 2 {
		return
	}
	hi := int32(0)
	for i := range states {
		if states[i].elf < 0 { // not an index: no counting
			slices.SortStableFunc(states, func(a, b funcState) int { return cmp.Compare(a.elf, b.elf) })
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
	sorted := make([]funcState, len(states))
	for i := range states {
		e := states[i].elf
		sorted[next[e]] = states[i]
		next[e]++
	}
	copy(states, sorted)
}

// groupStates sorts the saved states by base name (stably, so CU order is
// kept inside a group, as glibc's qsort does for pahole) and combines each
// group's flags and prototypes (spec §2.7 steps 1-5).
func groupStates(types *btf.Types, states []funcState, elf *loader.ElfFuncs, set features.Set) []funcGroup {
	sortStatesByElf(states)
	var groups []funcGroup
	for i := 0; i < len(states); {
		j := i + 1
		for j < len(states) && states[j].elf == states[i].elf {
			j++
		}
		g := funcGroup{elf: states[i].elf, states: states[i:j:j], trueSig: -1, trueSignature: set.TrueSignature}
		combine(types, &g)
		g.choose()
		groups = append(groups, g)
		i = j
	}
	return groups
}

// choose picks the group's true-signature state (spec §2.7 step 4), if
// true signatures apply to it, and its canonical state (step 5).
func (g *funcGroup) choose() {
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

// combine is pahole's saved_functions_combine over a group: the first state
// accumulates U, I, C and R; each later state holds the running OR; while
// none of U, I, R is set, prototypes are compared with the first.
func combine(types *btf.Types, g *funcGroup) {
	first := &g.states[0]
	first.accU = first.flags&loader.FuncUnexpectedReg != 0
	first.accC = first.uncertain
	first.accR = first.flags&loader.FuncReordered != 0
	for k := 1; k < len(g.states); k++ {
		b := &g.states[k]
		u := first.accU || b.flags&loader.FuncUnexpectedReg != 0
		i := first.accI
		c := first.accC || b.uncertain
		r := first.accR || b.flags&loader.FuncReordered != 0
		if !u && !i && !r {
			if msg := protoMismatch(types, first, b); msg != "" {
				i = true
				g.mismatch = msg
			}
		}
		first.accU, first.accI, first.accC, first.accR = u, i, c, r
		b.accU, b.accI, b.accC, b.accR = u, i, c, r
	}
}

// protoMismatch is pahole's funcs__match: "" when the prototypes agree,
// else pahole's message for the first difference.
func protoMismatch(types *btf.Types, a, b *funcState) string {
	if len(a.params) != len(b.params) {
		return fmt.Sprintf("param count mismatch; %d params != %d params", len(a.params), len(b.params))
	}
	if !types.TypesMatch(a.ret, b.ret) {
		return "return type mismatch"
	}
	for i := range a.params {
		if !types.TypesMatch(a.params[i].typ, b.params[i].typ) {
			return fmt.Sprintf("param type mismatch for param#%d %s != %s", i+1,
				types.Strings.String(a.params[i].nameOff), types.Strings.String(b.params[i].nameOff))
		}
	}
	return ""
}

// optSkip is pahole's btf_encoder_func_state__skip_optimized_parms, with
// trueSig saying whether true signatures apply to the state's group.
func optSkip(s *funcState, trueSig bool) bool {
	return !trueSig && s.flags&loader.FuncOptimizedParms != 0 &&
		(s.flags&loader.FuncSignatureChanged != 0 || s.optimizedSymbol)
}

// canonical is pahole's btf_encoder__select_canonical_state.
func canonical(g *funcGroup) int {
	if len(g.states) == 1 {
		return 0
	}
	first := -1
	for k := range g.states {
		s := &g.states[k]
		if !s.addrMatches {
			continue
		}
		if first < 0 {
			first = k
		}
		if !optSkip(s, g.trueSignature) {
			return k
		}
	}
	if first >= 0 {
		return first
	}
	return 0
}

// groupFacts builds the policy facts of every group; ids follow the order.
// With detail, instances carry their parameters.
func groupFacts(groups []funcGroup, elf *loader.ElfFuncs, sectionName func(uint32) string, detail bool) []facts.Function {
	out := make([]facts.Function, len(groups))
	for gi := range groups {
		out[gi] = groupFact(&groups[gi], gi, elf, sectionName, detail)
	}
	return out
}

// groupFact builds the facts of group g, whose id is gi.
func groupFact(g *funcGroup, gi int, elf *loader.ElfFuncs, sectionName func(uint32) string, detail bool) facts.Function {
	ef := &elf.Funcs[g.elf]
	first := &g.states[0]
	f := facts.Function{
		ID: gi, Name: ef.Name, AmbiguousAddr: ef.Ambiguous, Instances: len(g.states),
		Kfunc: ef.Kfunc, KfuncFlags: ef.KfuncFlags, PaholeKfunc: ef.PaholeKfunc, BTFIDRef: ef.BTFIDRef,
		UnexpectedReg: first.accU, UncertainLoc: first.accC, Reordered: first.accR,
		Inconsistent: first.accI, Mismatch: g.mismatch,
	}
	for _, s := range ef.Syms {
		f.Symbols = append(f.Symbols, facts.Symbol{Name: s.Name, Value: s.Value, Size: s.Size,
			Section: sectionName(s.Section), Global: s.Bind == 1 || s.Bind == 2})
	}
	if len(f.Symbols) > 0 {
		f.Section = f.Symbols[0].Section
	}
	f.TextRegions = elf.RegionsOf(ef)
	c := &g.states[g.canon]
	f.Canonical = instanceFacts(g, c, ef, detail)
	f.Noreturn = c.flags&(loader.FuncNoreturn|loader.FuncNoreturnOrigin) != 0
	f.External = c.flags&(loader.FuncExternal|loader.FuncExternalOrigin) != 0
	if g.trueSig >= 0 {
		ts := instanceFacts(g, &g.states[g.trueSig], ef, detail)
		f.TrueSig = &ts
	}
	return f
}

// instanceFacts builds the facts of state s of group g.
func instanceFacts(g *funcGroup, s *funcState, ef *loader.ElfFunc, detail bool) facts.Instance {
	in := facts.Instance{
		CU: int(s.cu), DIE: s.die, Addr: s.addr, AddrMatchesSymbol: s.addrMatches,
		Inline:           s.flags&loader.FuncInline != 0,
		OptimizedParms:   s.flags&loader.FuncOptimizedParms != 0,
		UnexpectedReg:    s.flags&loader.FuncUnexpectedReg != 0,
		UncertainLoc:     s.uncertain,
		Reordered:        s.flags&loader.FuncReordered != 0,
		SignatureChanged: s.flags&loader.FuncSignatureChanged != 0,
		OptimizedSymbol:  s.optimizedSymbol,
		OptimizedSkip:    optSkip(s, g.trueSignature),
		Clang:            s.flags&loader.FuncClang != 0,
		ABIWalk:          abiWalk(s.flags),
	}
	if g.trueSignature && s.trueSym >= 0 {
		in.TrueSym = ef.Syms[s.trueSym].Name
	}
	if detail {
		in.Params = s.facts
	}
	return in
}

// abiWalk names the ABI walk the loader ran (facts.Instance.ABIWalk).
func abiWalk(f loader.FuncFlags) string {
	switch {
	case f&loader.FuncTrueSigWalk != 0:
		return "true_signature"
	case f&loader.FuncClang != 0 && f&loader.FuncSignatureChanged == 0:
		return "registers"
	}
	return "locations"
}

// addParams gives the canonical and true-signature instances of fns their
// parameters, for policies that read them when groupFacts left them out.
func addParams(groups []funcGroup, fns []facts.Function) {
	for gi := range groups {
		g := &groups[gi]
		fns[gi].Canonical.Params = g.states[g.canon].facts
		if g.trueSig >= 0 && fns[gi].TrueSig != nil {
			fns[gi].TrueSig.Params = g.states[g.trueSig].facts
		}
	}
}

// addPrototypes fills in the prototypes of the canonical and
// true-signature instances of fns.
func addPrototypes(types *btf.Types, groups []funcGroup, elf *loader.ElfFuncs, fns []facts.Function) {
	p := &protoPrinter{types: types}
	for gi := range groups {
		g := &groups[gi]
		fns[gi].Canonical.Prototype = p.prototype(stateName(g, g.canon, elf), &g.states[g.canon])
		if g.trueSig >= 0 && fns[gi].TrueSig != nil {
			fns[gi].TrueSig.Prototype = p.prototype(stateName(g, g.trueSig, elf), &g.states[g.trueSig])
		}
	}
}

// stateName is the FUNC name state k of g would be emitted under: its
// clone's name for the true-signature state, else the base name.
func stateName(g *funcGroup, k int, elf *loader.ElfFuncs) string {
	ef := &elf.Funcs[g.elf]
	if k == g.trueSig {
		return ef.Syms[g.states[k].trueSym].Name
	}
	return ef.Name
}

// kfunc flags (include/linux/btf.h).
const (
	kfFastcall  = 1 << 12
	kfArenaRet  = 1 << 13
	kfArenaArg1 = 1 << 14
	kfArenaArg2 = 1 << 15
)

// emitFunctions appends FUNC_PROTO, FUNC and decl tags for every included
// group, in group (sorted name) order (spec §2.7 steps 6-7, §4). extra holds
// decl tags policies asked for, per group (may be nil).
func emitFunctions(types *btf.Types, groups []funcGroup, include []bool, extra [][]loader.FuncAnnot, elf *loader.ElfFuncs, set features.Set) error {
	var params []btf.Param
	for gi := range groups {
		if !include[gi] {
			continue
		}
		g := &groups[gi]
		ef := &elf.Funcs[g.elf]
		s := &g.states[g.canon]
		name := ef.Name
		trueSig := g.trueSig >= 0
		if trueSig {
			s = &g.states[g.trueSig]
			name = ef.Syms[s.trueSym].Name
		}
		kfunc := ef.PaholeKfunc && set.DeclTagKfuncs && !trueSig
		params = params[:0]
		for _, p := range s.params {
			params = append(params, btf.Param{Name: p.nameOff, Type: p.typ})
		}
		ret := s.ret
		if kfunc && set.Attributes {
			var err error
			if ef.KfuncFlags&kfArenaRet != 0 {
				if ret, err = arenaPtr(types, ret); err != nil {
					return fmt.Errorf("kfunc %s return type: %w", name, err)
				}
			}
			for i, flag := range []uint32{kfArenaArg1, kfArenaArg2} {
				if ef.KfuncFlags&flag == 0 {
					continue
				}
				if i >= len(params) {
					return fmt.Errorf("kfunc %s: arena flag for argument %d but it has %d", name, i+1, len(params))
				}
				if params[i].Type, err = arenaPtr(types, params[i].Type); err != nil {
					return fmt.Errorf("kfunc %s argument %d: %w", name, i+1, err)
				}
			}
		}
		proto := types.AddFuncProto(ret, params)
		fn := types.AddFunc(types.Strings.Add(name), proto, btf.FuncStatic)
		for _, a := range s.annots {
			types.AddDeclTag(types.Strings.Add(a.Value), fn, a.Component)
		}
		if kfunc && set.DeclTag {
			types.AddDeclTag(types.Strings.Add("bpf_kfunc"), fn, -1)
			if ef.KfuncFlags&kfFastcall != 0 {
				types.AddDeclTag(types.Strings.Add("bpf_fastcall"), fn, -1)
			}
		}
		if extra != nil {
			for _, a := range extra[gi] {
				types.AddDeclTag(types.Strings.Add(a.Value), fn, a.Component)
			}
		}
	}
	return nil
}

// arenaPtr replaces PTR -> T by PTR -> TYPE_TAG(kind_flag, "address_space(1)") -> T.
func arenaPtr(types *btf.Types, ptr btf.TypeID) (btf.TypeID, error) {
	if ptr == 0 || types.Kind(ptr) != btf.KindPtr {
		return 0, fmt.Errorf("type %d is not a pointer", ptr)
	}
	tag := types.AddTypeTag(types.Strings.Add("address_space(1)"), types.Ref(ptr), true)
	return types.AddRef(btf.KindPtr, 0, tag), nil
}

// instanceDetail lists every instance of every group, with parameters and
// prototypes, for explain and the report.
func instanceDetail(types *btf.Types, groups []funcGroup, elf *loader.ElfFuncs) [][]facts.Instance {
	p := &protoPrinter{types: types}
	out := make([][]facts.Instance, len(groups))
	for gi := range groups {
		g := &groups[gi]
		out[gi] = make([]facts.Instance, len(g.states))
		for k := range g.states {
			in := instanceFacts(g, &g.states[k], &elf.Funcs[g.elf], true)
			in.Prototype = p.prototype(stateName(g, k, elf), &g.states[k])
			out[gi][k] = in
		}
	}
	return out
}
