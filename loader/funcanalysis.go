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
		p := FuncParam{Name: rp.name, Idx: rp.idx, OriginIdx: -1, LocReg: -1,
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
			w.decodeLocation(&p, &rp.loc, t.Unit, addrSize, arch)
			if p.FirstFields != 0 || p.SecondFields != 0 {
				w.trueSigCandidate(&p, rp, addrSize)
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
		if isClang && f.Flags&FuncSignatureChanged == 0 {
			matchClangLocations(params, arch, addrSize)
		} else {
			analyzeLocations(params, arch, addrSize, w.opts.TrueSignature && f.Flags&FuncSignatureChanged != 0, isClang)
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
func (w *Walker) trueSigCandidate(p *FuncParam, rp *rawFuncParam, addrSize int) {
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
	m := w.memberAt(rp.typeRef, off)
	if m == nil || m.name == "" || m.ref == 0 {
		return
	}
	p.TrueSigMember = m.name
	p.TrueSigType = w.resolve(m.ref)
}

// memberAt is pahole's get_member_with_offset: the type that ref names is
// followed through DW_AT_type while it has no DW_AT_byte_size (typedefs,
// qualifiers, and pointers, which carry no size in DWARF); if it is then a
// struct, its first member at byte off (by DW_AT_data_bit_offset, else
// DW_AT_data_member_location) is returned.
func (w *Walker) memberAt(ref uint64, off uint64) *rawMember {
	for n := 0; n < 64; n++ {
		i := w.lookup(ref)
		if i < 0 {
			return nil
		}
		rt := &w.raw[i]
		if rt.size == 0 {
			ref = rt.ref
			continue
		}
		if rt.tag != dwarf.TagStructureType {
			return nil
		}
		k := int32(rt.first)
		for c := rt.count; c > 0 && k >= 0; c-- {
			m := &w.members[k]
			k = m.next
			switch {
			case m.hasDataBitOff:
				if m.dataBitOffset == off*8 {
					return m
				}
			case m.hasLoc:
				if m.loc == off {
					return m
				}
			}
		}
		return nil
	}
	return nil
}

// maxOps bounds the operations pahole's decoding looks at per expression;
// longer expressions only matter through their first ops and pieces.
const maxOps = 64

// decodeLocation is pahole's parameter__decode_location.
func (w *Walker) decodeLocation(p *FuncParam, loc *dwarf.Field, u *dwarf.Unit, addrSize int, arch Arch) {
	switch loc.Class {
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		w.decodeExpr(p, loc.Bytes, 0, u, addrSize, arch)
		return
	}
	locNum := -1
	_ = w.data.LocList(u, loc.Val, func(e dwarf.LocEntry) bool {
		locNum++
		if len(e.Expr) > 0 {
			w.decodeExpr(p, e.Expr, locNum, u, addrSize, arch)
		}
		return true
	})
}

// decodeExpr interprets one location expression, entry locNum of the list.
func (w *Walker) decodeExpr(p *FuncParam, expr []byte, locNum int, u *dwarf.Unit, addrSize int, arch Arch) {
	ops := w.ops[:0]
	x := dwarf.NewExprReader(expr, u, w.order)
	var op dwarf.Op
	for len(ops) < maxOps && x.Next(&op) {
		ops = append(ops, op)
	}
	w.ops = ops
	if len(ops) == 0 {
		return
	}
	hadStackValue := ops[len(ops)-1].Code == dwarf.OpStackValue
	n := len(ops)
	if n == 2 && hadStackValue {
		n = 1
	}
	if n != 1 {
		multiExprs(p, ops[:n], locNum, addrSize, arch)
		return
	}
	c := ops[0].Code
	switch {
	case isReg(c):
		if locNum == 0 {
			setLocReg(p, int(c-dwarf.OpReg0))
		}
	case c >= dwarf.OpBreg0 && c <= dwarf.OpBreg0+31:
		if locNum == 0 && hadStackValue {
			setLocReg(p, int(c-dwarf.OpBreg0))
		}
	case c == dwarf.OpFbreg:
		if locNum == 0 {
			p.LocStack = true
		}
	case isConstOp(c):
		if locNum == 0 {
			p.LocConst = true
		}
	case c == dwarf.OpEntryValue || c == dwarf.OpGNUEntryValue:
		inner := dwarf.NewExprReader(ops[0].Block, u, w.order)
		var iop dwarf.Op
		count, reg := 0, -1
		for inner.Next(&iop) {
			count++
			if isReg(iop.Code) {
				reg = int(iop.Code - dwarf.OpReg0)
			} else {
				reg = -1
			}
		}
		if count == 1 && reg >= 0 {
			setLocReg(p, reg)
		}
	}
}

// multiExprs is pahole's parameter__multi_exprs.
func multiExprs(p *FuncParam, ops []dwarf.Op, locNum int, addrSize int, arch Arch) {
	if isConstOp(ops[0].Code) {
		if locNum == 0 {
			p.LocConst = true
		}
		return
	}
	if int(p.TypeSize) <= addrSize || !arch.AggTwo {
		c := ops[0].Code
		switch {
		case isReg(c):
			if locNum == 0 {
				setLocReg(p, int(c-dwarf.OpReg0))
			}
		case c >= dwarf.OpBreg0 && c <= dwarf.OpBreg0+31:
			if locNum == 0 && hasStackValue(ops) {
				setLocReg(p, int(c-dwarf.OpBreg0))
			}
		}
		return
	}
	off := 0
	for i := range ops {
		c := ops[i].Code
		switch {
		case c == dwarf.OpPiece:
			num := int(ops[i].Args[0])
			if i == 0 {
				off = num
				continue
			}
			if off < addrSize {
				setFieldBit(&p.FirstFields, off)
			} else {
				setFieldBit(&p.SecondFields, off-addrSize)
			}
			off += num
		case isReg(c):
			if off < addrSize || p.LocReg < 0 {
				setLocReg(p, int(c-dwarf.OpReg0))
			}
		}
	}
}

func hasStackValue(ops []dwarf.Op) bool {
	for i := 1; i < len(ops); i++ {
		if ops[i].Code == dwarf.OpStackValue {
			return true
		}
	}
	return false
}

func setFieldBit(fields *uint64, off int) {
	if off >= 0 && off < 64 {
		*fields |= 1 << uint(off)
	}
}

func setLocReg(p *FuncParam, reg int) {
	if p.LocReg < 0 {
		p.LocReg = int8(reg)
	}
}

func isReg(c dwarf.OpCode) bool { return c >= dwarf.OpReg0 && c <= dwarf.OpReg31 }

func isConstOp(c dwarf.OpCode) bool {
	return (c >= dwarf.OpLit0 && c <= dwarf.OpLit31) || c == dwarf.OpConstu || c == dwarf.OpConsts
}

// abiSlots is pahole's parameter__abi_slots.
func abiSlots(p *FuncParam, arch Arch, addrSize int) int {
	if !arch.AggTwo || int(p.TypeSize) <= addrSize {
		return 1
	}
	s := (int(p.TypeSize) + addrSize - 1) / addrSize
	if s <= 0 {
		return 1
	}
	return s
}

// matchClangLocations is pahole's simple clang path (Path A, spec §2.5).
func matchClangLocations(params []FuncParam, arch Arch, addrSize int) {
	r := 0
	for i := range params {
		p := &params[i]
		slots := abiSlots(p, arch, addrSize)
		if p.InMemory {
			continue
		}
		if r >= arch.NrRegs {
			break
		}
		if p.LocReg >= 0 && !regInWindow(p, r, slots, arch) {
			p.UnexpectedReg = true
		}
		r += slots
	}
}

func regInWindow(p *FuncParam, r, slots int, arch Arch) bool {
	for i := 0; i < slots; i++ {
		idx := r + i
		if idx >= arch.NrRegs {
			break
		}
		if int(p.LocReg) == int(arch.RegMap[idx]) {
			return true
		}
	}
	return false
}

// nextPreservesSlots is pahole's ftype__next_parameter_preserves_slots.
func nextPreservesSlots(params []FuncParam, i, r, slots int, arch Arch) bool {
	if i+1 >= len(params) || params[i+1].LocReg < 0 {
		return false
	}
	next := r + slots
	return next < arch.NrRegs && int(params[i+1].LocReg) == int(arch.RegMap[next])
}

// analyzeLocations is pahole's function__analyze_parameter_locations for
// GCC and for clang functions whose signature changed (Path B, spec §2.5).
func analyzeLocations(params []FuncParam, arch Arch, addrSize int, trueSig, isClang bool) {
	r := 0
	for i := range params {
		p := &params[i]
		consumes := true
		avail := r < arch.NrRegs
		slots := abiSlots(p, arch, addrSize)
		expected := -1
		if avail && r < len(arch.RegMap) {
			expected = int(arch.RegMap[r])
		}
		regSlots := slots
		if p.InMemory {
			regSlots = 1
		}
		switch {
		case p.HasLoc:
			switch {
			case trueSig && p.LocConst:
				p.Optimized = true
				consumes = false
			case !avail:
				consumes = false
			case trueSig && p.LocStack:
				if p.InMemory {
					consumes = false
				} else {
					p.UnexpectedReg = true
				}
			case p.LocReg < 0:
				if trueSig {
					p.UnexpectedReg = true
				} else {
					p.Optimized = true
				}
			case expected >= 0 && expected != int(p.LocReg):
				p.UnexpectedReg = true
			case trueSig && (p.FirstFields != 0 || p.SecondFields != 0):
				if p.FirstFields != 0 && p.SecondFields != 0 {
					r += slots
					continue
				}
				if nextPreservesSlots(params, i, r, slots, arch) {
					// The next parameter sits after the whole struct:
					// the struct keeps its registers.
					p.TrueSigMember, p.TrueSigType = "", 0
					r += slots
					continue
				}
				if p.TrueSigMember != "" && p.TrueSigType != 0 {
					// Only the member is passed, in one register.
					p.Type = p.TrueSigType
					p.TrueSigApplied = true
					r++
					continue
				}
			}
		case p.HasConstValue && !isClang:
			p.Optimized = true
		case trueSig:
			if avail && nextPreservesSlots(params, i, r, slots, arch) {
				r += slots
				continue
			}
			p.Optimized = true
			consumes = false
		}
		if consumes {
			r += regSlots
		}
	}
}
