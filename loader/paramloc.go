package loader

import "github.com/btfgate/btfgate/loader/dwarf"

// Location facts beyond pahole's (facts.Param: loc_regs,
// entry_value_regs, first_range_at_entry, entry_loc): every register a
// parameter's location names, the registers named inside
// DW_OP_entry_value, whether the first location-list entry starts at the
// function's entry, and the kind of location at the entry. pahole reads
// none of these; they do not change any decision of the default rules.

// Entry location kinds (FuncParam.EntryLoc).
const (
	EntryLocNone       uint8 = iota // no location covers the entry address
	EntryLocRegister                // DW_OP_regN/regx, or bregN/bregx ... DW_OP_stack_value
	EntryLocEntryValue              // DW_OP_entry_value / DW_OP_GNU_entry_value first
	EntryLocStack                   // DW_OP_fbreg, or memory at bregN/bregx + offset
	EntryLocConst                   // a literal, constant or DW_OP_implicit_value
	EntryLocOther                   // anything else (DW_OP_addr, implicit pointers, ...)
)

// EntryLocName is the kind's name in facts.Param.EntryLoc.
func EntryLocName(k uint8) string {
	switch k {
	case EntryLocRegister:
		return "register"
	case EntryLocEntryValue:
		return "entry_value"
	case EntryLocStack:
		return "stack"
	case EntryLocConst:
		return "const"
	case EntryLocOther:
		return "other"
	}
	return "none"
}

// maxRegBits bounds the registers recorded: DWARF register numbers below 64.
const maxRegBits = 64

// scanLocation fills p's location facts from its DW_AT_location loc; lowPC
// is the function's entry address (DW_AT_low_pc) if hasLowPC. A function
// without one (described by DW_AT_ranges only) has no entry here: a list's
// first range is not at it and no entry covers it.
func (w *Walker) scanLocation(p *FuncParam, loc *dwarf.Field, u *dwarf.Unit, lowPC uint64, hasLowPC bool) {
	switch loc.Class {
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		// One expression, valid wherever the parameter is.
		p.FirstAtEntry = true
		p.EntryLoc = w.scanExpr(p, loc.Bytes, u)
		return
	}
	first, atEntry, hasDefault := true, false, false
	var dfltKind uint8
	w.noteLocList(u, loc.Val)
	_ = w.data.LocList(u, loc.Val, func(e dwarf.LocEntry) bool {
		kind := w.scanExpr(p, e.Expr, u)
		switch {
		case e.Default:
			hasDefault, dfltKind = true, kind
			return true
		case first:
			p.FirstAtEntry = hasLowPC && e.Low == lowPC
			first = false
		}
		if !atEntry && hasLowPC && e.Low <= lowPC && lowPC < e.High {
			atEntry = true
			p.EntryLoc = kind
		}
		return true
	})
	if !atEntry && hasDefault {
		p.EntryLoc = dfltKind
	}
}

// scanExpr records the registers of expr in p and returns its kind.
func (w *Walker) scanExpr(p *FuncParam, expr []byte, u *dwarf.Unit) uint8 {
	if len(expr) == 0 {
		return EntryLocNone
	}
	x := dwarf.NewExprReader(expr, u, w.order)
	var op dwarf.Op
	kind := EntryLocNone
	firstOp := true
	stackValue := false
	for n := 0; n < maxOps && x.Next(&op); n++ {
		c := op.Code
		k := EntryLocOther
		switch {
		case isReg(c):
			p.LocRegs |= regBit(int(c - dwarf.OpReg0))
			k = EntryLocRegister
		case c == dwarf.OpRegx:
			p.LocRegs |= regBit(int(op.Args[0]))
			k = EntryLocRegister
		case c >= dwarf.OpBreg0 && c <= dwarf.OpBreg0+31:
			p.LocRegs |= regBit(int(c - dwarf.OpBreg0))
			k = EntryLocStack
		case c == dwarf.OpBregx:
			p.LocRegs |= regBit(int(op.Args[0]))
			k = EntryLocStack
		case c == dwarf.OpFbreg:
			k = EntryLocStack
		case isConstOp(c) || c == dwarf.OpImplicitValue:
			k = EntryLocConst
		case c == dwarf.OpEntryValue || c == dwarf.OpGNUEntryValue:
			inner := dwarf.NewExprReader(op.Block, u, w.order)
			var iop dwarf.Op
			for m := 0; m < maxOps && inner.Next(&iop); m++ {
				switch {
				case isReg(iop.Code):
					p.EntryValueRegs |= regBit(int(iop.Code - dwarf.OpReg0))
				case iop.Code == dwarf.OpRegx:
					p.EntryValueRegs |= regBit(int(iop.Args[0]))
				case iop.Code >= dwarf.OpBreg0 && iop.Code <= dwarf.OpBreg0+31:
					p.EntryValueRegs |= regBit(int(iop.Code - dwarf.OpBreg0))
				case iop.Code == dwarf.OpBregx:
					p.EntryValueRegs |= regBit(int(iop.Args[0]))
				}
			}
			k = EntryLocEntryValue
		case c == dwarf.OpStackValue:
			stackValue = true
			continue
		case c == dwarf.OpPiece || c == dwarf.OpBitPiece:
			continue
		}
		if firstOp {
			kind, firstOp = k, false
		}
	}
	// bregN ... DW_OP_stack_value is a value computed from the register,
	// not memory at it.
	if kind == EntryLocStack && stackValue {
		kind = EntryLocRegister
	}
	return kind
}

func regBit(reg int) uint64 {
	if reg < 0 || reg >= maxRegBits {
		return 0
	}
	return 1 << uint(reg)
}

// RegList lists the registers of a bit set, in increasing order.
func RegList(bits uint64) []int {
	var out []int
	for r := 0; r < maxRegBits; r++ {
		if bits&(1<<uint(r)) != 0 {
			out = append(out, r)
		}
	}
	return out
}
