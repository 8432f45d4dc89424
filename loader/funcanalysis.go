package loader

import (
	"math/bits"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// analyzeFuncs fills the parameters of t.Funcs and computes pahole's
// location facts and per-function flags: parameter decoding (spec §2.4),
// abstract-origin sharing (ftype__recode_dwarf_types) and the ABI walk
// (§2.5), each over the whole CU in functions_table order, as pahole does.
func analyzeFuncs(w *Walker, t *TypeTable, isClang bool) {
	arch := w.opts.Arch
	addrSize := int(t.Unit.AddrSize)

	// 1. Each parameter's own facts.
	for slot := range t.FuncParams {
		rp := &w.fparams[w.paramRaw[slot]]
		p := FuncParam{Name: rp.name, Idx: rp.idx, OriginIdx: -1, LocReg: -1, ABISlot: -1,
			HasConstValue: rp.hasConst, HasLoc: rp.loc.Attr != 0}
		if rp.typeRef != 0 {
			p.Type = w.resolve(rp.typeRef)
		}
		sizeRef := rp.typeRef
		if rp.origin != 0 {
			sizeRef = 0
			if o := w.paramAt(rp.origin); o >= 0 {
				sizeRef = w.fparams[w.paramRaw[o]].typeRef
			}
		}
		p.TypeSize = uint16(w.dieTypeSize(sizeRef, addrSize))
		limit := addrSize
		if arch.AggTwo {
			limit = 2 * addrSize
		}
		p.InMemory = int(p.TypeSize) > limit
		if p.HasLoc {
			u := w.unitOf(rp.off, t.Unit)
			w.decodeLocation(&p, &rp.loc, u, addrSize, arch)
			fn := &w.funcs[rp.owner]
			w.scanLocation(&p, &rp.loc, u, fn.lowPC, fn.hasLowPC)
			if p.FirstFields != 0 || p.SecondFields != 0 {
				w.trueSigCandidate(&p, rp, addrSize, t)
			}
		}
		t.FuncParams[slot] = p
	}

	// 2. Abstract-origin sharing, in functions_table order. A parameter
	// that refers to an origin takes its name and type from it; the
	// origin accumulates the concrete location facts.
	//
	// recoded says whether a parameter's type is final yet. pahole
	// resolves every parameter's own DW_AT_type in one pass over its
	// tags_table, before any function; a parameter that refers to an
	// origin gets its type only when its function is recoded, in
	// functions_table order. So an origin parameter with a type of its
	// own is always resolved, and one that refers to an origin itself
	// reads as void until its function has been reached.
	recoded := w.recoded[:0]
	for slot := range t.FuncParams {
		rp := &w.fparams[w.paramRaw[slot]]
		recoded = append(recoded, rp.typeRef != 0 || rp.origin == 0)
	}
	w.recoded = recoded
	for fi := range t.Funcs {
		f := &t.Funcs[fi]
		for slot := f.First; slot < f.First+f.Count; slot++ {
			rp := &w.fparams[w.paramRaw[slot]]
			p := &t.FuncParams[slot]
			if rp.typeRef != 0 || rp.origin == 0 {
				continue
			}
			recoded[slot] = true
			o := w.paramAt(rp.origin)
			if o < 0 {
				continue
			}
			op := &t.FuncParams[o]
			p.Name = op.Name
			p.OriginIdx = op.Idx
			if p.Idx != op.Idx {
				f.Flags |= FuncReordered
			}
			// The origin's type as recoded so far (see recoded above).
			p.Type = 0
			if recoded[o] {
				p.Type = op.Type
			}
			if p.HasLoc {
				op.HasLoc = true
			}
			if p.HasConstValue {
				op.HasConstValue = true
			}
			if p.LocConst {
				op.LocConst = true
			}
			if p.LocStack {
				op.LocStack = true
			}
			if p.LocReg >= 0 {
				op.LocReg = p.LocReg
			}
			if p.TypeSize != 0 {
				op.TypeSize = p.TypeSize
			}
			if p.InMemory {
				op.InMemory = true
			}
			op.FirstFields |= p.FirstFields
			op.SecondFields |= p.SecondFields
			if p.TrueSigMember != "" && op.TrueSigMember == "" {
				op.TrueSigMember, op.TrueSigType = p.TrueSigMember, p.TrueSigType
			}
		}
	}

	// 3. The ABI walk and the function-level flags.
	for fi := range t.Funcs {
		f := &t.Funcs[fi]
		params := t.FuncParams[f.First : f.First+f.Count]
		changed := f.Flags&FuncSignatureChanged != 0
		if isClang {
			f.Flags |= FuncClang
		}
		trueSig := w.opts.TrueSignature && changed
		if trueSig {
			f.Flags |= FuncTrueSigWalk
		}
		if isClang && !changed {
			matchClangLocations(params, arch, addrSize)
		} else {
			analyzeLocations(params, arch, addrSize, trueSig, isClang)
		}
		unexpected := false
		for i := range params {
			if params[i].Optimized || !params[i].HasLoc {
				f.Flags |= FuncOptimizedParms
			}
			if params[i].UnexpectedReg {
				unexpected = true
			}
		}
		if unexpected {
			hasStruct := false
			for i := range params {
				if t.isStructParam(params[i].Type) {
					hasStruct = true
					break
				}
			}
			if !hasStruct {
				f.Flags |= FuncUnexpectedReg
			}
		}
	}
}

// dieTypeSize is pahole's __get_type_byte_size for a DW_AT_type reference:
// pointers are addrSize, otherwise DW_AT_byte_size, following DW_AT_type
// while the size is 0.
func (w *Walker) dieTypeSize(ref uint64, addrSize int) int {
	for n := 0; ref != 0 && n < 64; n++ {
		i := w.lookup(ref)
		if i < 0 {
			return 0
		}
		rt := &w.raw[i]
		if rt.tag == dwarf.TagPointerType {
			return addrSize
		}
		if rt.size != 0 {
			return int(rt.size)
		}
		ref = rt.ref
	}
	return 0
}

// isStructParam is pahole's param__is_struct: the type, through const and
// typedef, is a DW_TAG_structure_type.
func (t *TypeTable) isStructParam(id TypeID) bool {
	for n := 0; id != 0 && n < 64; n++ {
		en := &t.Entries[id]
		switch en.Tag {
		case dwarf.TagStructureType:
			return true
		case dwarf.TagConstType, dwarf.TagTypedef:
			id = en.Type
			continue
		}
		return false
	}
	return false
}

// trueSigCandidate is pahole's parameter__finish_piece_decode: when the
// piece walk found exactly one piece, in one of the two register parts,
// the struct member at that byte offset becomes the parameter's
// true_signature member candidate. Only a parameter with its own name and
// type has one (a concrete instance's parameter that refers to an origin
// has neither).
func (w *Walker) trueSigCandidate(p *FuncParam, rp *rawFuncParam, addrSize int, t *TypeTable) {
	first, second := p.FirstFields, p.SecondFields
	if first != 0 && second != 0 || bits.OnesCount64(first) >= 2 || bits.OnesCount64(second) >= 2 {
		return
	}
	if rp.name == "" || rp.typeRef == 0 {
		return
	}
	off := uint64(bits.TrailingZeros64(first))
	if first == 0 {
		off = uint64(addrSize + bits.TrailingZeros64(second))
	}
	k := w.memberAt(rp.typeRef, off)
	if k < 0 || t.Members[k].Name == "" || w.memRef[k] == 0 {
		return
	}
	p.TrueSigMember = t.Members[k].Name
	p.TrueSigType = w.resolve(w.memRef[k])
}

// memberAt is pahole's get_member_with_offset: the type that ref names is
// followed through DW_AT_type while it has no DW_AT_byte_size (typedefs,
// qualifiers, and pointers, which carry no size in DWARF); if it is then a
// struct, its first member at byte off (by DW_AT_data_bit_offset, else
// DW_AT_data_member_location) is returned: its index in the walk's
// members (TypeTable.Members before finishMembers), or -1.
func (w *Walker) memberAt(ref uint64, off uint64) int32 {
	for n := 0; n < 64; n++ {
		i := w.lookup(ref)
		if i < 0 {
			return -1
		}
		rt := &w.raw[i]
		if rt.size == 0 {
			ref = rt.ref
			continue
		}
		if rt.tag != dwarf.TagStructureType {
			return -1
		}
		k := int32(rt.first)
		for c := rt.count; c > 0 && k >= 0; c-- {
			if w.memAt[k] == off {
				return k
			}
			k = w.memNext[k]
		}
		return -1
	}
	return -1
}
