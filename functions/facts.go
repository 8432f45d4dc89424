package functions

import (
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/loader"
)

// Facts builds the policy facts of every group; group i's have ID i. With
// detail, the canonical and true-signature instances carry their
// parameters. sectionName names an ELF section by index.
func (gs *Groups) Facts(sectionName func(uint32) string, detail bool) []facts.Function {
	out := make([]facts.Function, len(gs.list))
	for gi := range gs.list {
		out[gi] = gs.Fact(gi, sectionName, detail)
	}
	return out
}

// Fact builds the facts of group gi.
func (gs *Groups) Fact(gi int, sectionName func(uint32) string, detail bool) facts.Function {
	g := &gs.list[gi]
	ef := &gs.elf.Funcs[g.elf]
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
	f.TextRegions = gs.elf.RegionsOf(ef)
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
func instanceFacts(g *group, s *State, ef *loader.ElfFunc, detail bool) facts.Instance {
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

// AddParams gives the canonical and true-signature instances of fns, facts
// of these groups (by ID), their parameters, for policies that read them
// when Facts left them out.
func (gs *Groups) AddParams(fns []facts.Function) {
	for i := range fns {
		g := &gs.list[fns[i].ID]
		fns[i].Canonical.Params = g.states[g.canon].facts
		if g.trueSig >= 0 && fns[i].TrueSig != nil {
			fns[i].TrueSig.Params = g.states[g.trueSig].facts
		}
	}
}

// AddPrototypes fills in the prototypes of the canonical and
// true-signature instances of fns, facts of these groups (by ID).
func (gs *Groups) AddPrototypes(fns []facts.Function) {
	p := &protoPrinter{types: gs.types}
	for i := range fns {
		g := &gs.list[fns[i].ID]
		fns[i].Canonical.Prototype = p.prototype(gs.stateName(g, g.canon), &g.states[g.canon])
		if g.trueSig >= 0 && fns[i].TrueSig != nil {
			fns[i].TrueSig.Prototype = p.prototype(gs.stateName(g, g.trueSig), &g.states[g.trueSig])
		}
	}
}

// stateName is the FUNC name state k of g would be emitted under: its
// clone's name for the true-signature state, else the base name.
func (gs *Groups) stateName(g *group, k int) string {
	ef := &gs.elf.Funcs[g.elf]
	if k == g.trueSig {
		return ef.Syms[g.states[k].trueSym].Name
	}
	return ef.Name
}

// Instances lists every instance of every group, with parameters and
// prototypes, for explain and the report.
func (gs *Groups) Instances() [][]facts.Instance {
	p := &protoPrinter{types: gs.types}
	out := make([][]facts.Instance, len(gs.list))
	for gi := range gs.list {
		g := &gs.list[gi]
		out[gi] = make([]facts.Instance, len(g.states))
		for k := range g.states {
			in := instanceFacts(g, &g.states[k], &gs.elf.Funcs[g.elf], true)
			in.Prototype = p.prototype(gs.stateName(g, k), &g.states[k])
			out[gi][k] = in
		}
	}
	return out
}
