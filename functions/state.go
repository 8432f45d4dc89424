package functions

import (
	"strings"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
)

// State is one DWARF function instance that matched an ELF base name:
// pahole's btf_encoder_func_state (spec §2.6). Type ids are CU-local from
// Save until Globalize, global after.
type State struct {
	elf             int32 // index into ElfFuncs
	cu              int32
	die             uint64
	addr            uint64
	ret             btf.TypeID
	params          []stateParam // after pahole's drops; varargs as a trailing {"" , 0}
	flags           loader.FuncFlags
	uncertain       bool
	optimizedSymbol bool
	addrMatches     bool
	// trueSym indexes the group's first dotted symbol at addr, -1: the
	// name of its true signature, used where true signatures apply to the
	// group (the feature, or a true_signature rule).
	trueSym int32
	annots  []loader.FuncAnnot
	facts   []facts.Param // every DWARF parameter, for reports
	// Accumulated group flags (pahole stores the running OR in each state).
	accU, accI, accC, accR bool
}

type stateParam struct {
	name    string // until the CU is spliced; it may alias the input's DWARF
	nameOff uint32 // the name in the output string table, once spliced
	typ     btf.TypeID
}

// Options is what saving states needs to know.
type Options struct {
	Arch          loader.Arch
	TrueSignature bool // the feature: states drop the parameters clang optimized out
	Relocatable   bool // ET_REL: DWARF addresses never equal symbol values (spec §2.9 h)
}

// Save applies pahole's per-CU function filter (spec §2.3) to a CU's
// functions and saves a state for each one that passes, matched by name
// to elf's functions.
func Save(tab *loader.TypeTable, cu int, elf *loader.ElfFuncs, o *Options) []State {
	if !elf.Any {
		return nil
	}
	// The functions that pass, first: their parameters then share one
	// array of facts and one of parameters, not two small ones each.
	type kept struct{ fi, ei int }
	var pass []kept
	nparams := 0
	for fi := range tab.Funcs {
		f := &tab.Funcs[fi]
		if f.Flags&loader.FuncDeclaration != 0 || f.Name == "" {
			continue
		}
		named := true
		for _, p := range tab.FuncParams[f.First : f.First+f.Count] {
			if p.Name == "" {
				named = false
				break
			}
		}
		if !named {
			continue
		}
		if ei := elf.Find(f.Name); ei >= 0 {
			pass = append(pass, kept{fi, ei})
			nparams += int(f.Count)
		}
	}
	if len(pass) == 0 {
		return nil
	}
	packed := loader.NewPackedInference(tab)
	out := make([]State, 0, len(pass))
	allFacts := make([]facts.Param, 0, nparams)
	allParams := make([]stateParam, 0, nparams+len(pass)) // + varargs markers
	for _, k := range pass {
		f, ei := &tab.Funcs[k.fi], k.ei
		params := tab.FuncParams[f.First : f.First+f.Count]
		ef := &elf.Funcs[ei]
		s := State{elf: int32(ei), cu: int32(cu), die: f.Offset, addr: f.LowPC, ret: btf.TypeID(f.Ret),
			flags: f.Flags, trueSym: -1, uncertain: uncertainLocation(tab, params, o.Arch, packed)}
		if s.addr != 0 && !o.Relocatable {
			for k, sym := range ef.Syms {
				if sym.Value != s.addr {
					continue
				}
				s.addrMatches = true
				if s.trueSym < 0 && strings.IndexByte(sym.Name, '.') >= 0 {
					s.trueSym = int32(k)
				}
				if !s.optimizedSymbol && optimizedSuffix(sym.Name) {
					s.optimizedSymbol = true
				}
			}
		}
		reordered := f.Flags&loader.FuncReordered != 0
		sigChanged := f.Flags&loader.FuncSignatureChanged != 0
		factsFrom, paramsFrom := len(allFacts), len(allParams)
		for i := range params {
			p := &params[i]
			allFacts = append(allFacts, paramFacts(tab, p, o.Arch))
			if reordered && (!p.HasLoc || p.Optimized) {
				continue
			}
			if o.TrueSignature && sigChanged && p.Optimized {
				continue
			}
			name := p.Name
			if o.TrueSignature && sigChanged && p.TrueSigMember != "" && name != "" {
				// pahole names a parameter with a member candidate
				// PARAM__MEMBER, whether or not the walk passed the member.
				name = name + "__" + p.TrueSigMember
			}
			allParams = append(allParams, stateParam{name: name, typ: btf.TypeID(p.Type)})
		}
		if f.Flags&loader.FuncVarargs != 0 {
			allParams = append(allParams, stateParam{})
		}
		// Full slice expressions: appending to one state's slices copies.
		if len(allFacts) > factsFrom {
			s.facts = allFacts[factsFrom:len(allFacts):len(allFacts)]
		}
		if len(allParams) > paramsFrom {
			s.params = allParams[paramsFrom:len(allParams):len(allParams)]
		}
		if f.AnnotCount > 0 {
			s.annots = append([]loader.FuncAnnot(nil), tab.FuncAnnots[f.AnnotFirst:f.AnnotFirst+f.AnnotCount]...)
		}
		out = append(out, s)
	}
	return out
}

// optimizedSuffix: the text from the first '.' contains .constprop or .isra.
func optimizedSuffix(name string) bool {
	dot := strings.IndexByte(name, '.')
	if dot < 0 {
		return false
	}
	return strings.Contains(name[dot:], ".constprop") || strings.Contains(name[dot:], ".isra")
}

// uncertainLocation is pahole's ftype__has_uncertain_arg_loc: a named
// struct passed directly (no typedef stripping) on the stack that pahole
// infers to be packed. packed is the CU's inference, asked in pahole's
// order (its answers depend on it).
func uncertainLocation(tab *loader.TypeTable, params []loader.FuncParam, arch loader.Arch, packed *loader.PackedInference) bool {
	if len(params) < arch.NrRegs {
		return false
	}
	for i := arch.NrRegs; i < len(params); i++ {
		id := params[i].Type
		if id == 0 {
			continue
		}
		en := &tab.Entries[id]
		if (en.Tag != dwarf.TagStructureType && en.Tag != dwarf.TagClassType && en.Tag != dwarf.TagInterfaceType) || en.Name == "" {
			continue
		}
		if packed.Packed(id) {
			return true
		}
	}
	return false
}

func paramFacts(tab *loader.TypeTable, p *loader.FuncParam, arch loader.Arch) facts.Param {
	expected := int8(-1)
	if p.ABISlot >= 0 && int(p.ABISlot) < arch.NrRegs {
		expected = arch.RegMap[p.ABISlot]
	}
	return facts.Param{
		Name: strings.Clone(p.Name), Type: tab.TypeName(p.Type), Idx: int(p.Idx), OriginIdx: int(p.OriginIdx),
		HasLoc: p.HasLoc, HasConstValue: p.HasConstValue, LocReg: int(p.LocReg),
		LocStack: p.LocStack, LocConst: p.LocConst, TypeSize: int(p.TypeSize), InMemory: p.InMemory,
		IsStruct: tab.IsStructParam(p.Type), Optimized: p.Optimized, UnexpectedReg: p.UnexpectedReg,
		ABISlot: p.ABISlot, ABISlots: p.ABISlots, ExpectedReg: expected,
		TrueSigMember: strings.Clone(p.TrueSigMember), PassedAsMember: p.TrueSigApplied,
		LocRegs: loader.RegList(p.LocRegs), EntryValueRegs: loader.RegList(p.EntryValueRegs),
		FirstRangeAtEntry: p.FirstAtEntry, EntryLoc: loader.EntryLocName(p.EntryLoc),
	}
}

// Globalize turns a spliced CU's local type ids into global ones and
// interns the parameter names (pahole adds them to the string table when
// it saves a function, spec §2.6), so that states no longer point into the
// input's DWARF.
func Globalize(states []State, ids btf.LocalIDs, intern func(string) uint32) {
	for i := range states {
		s := &states[i]
		s.ret = ids.Global(s.ret)
		for k := range s.params {
			p := &s.params[k]
			p.typ = ids.Global(p.typ)
			p.nameOff = intern(p.name)
			p.name = ""
		}
		for k := range s.annots {
			s.annots[k].Value = strings.Clone(s.annots[k].Value)
		}
	}
}
