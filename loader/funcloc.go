package loader

import "github.com/btfgate/btfgate/loader/dwarf"

// Parameter locations (spec §2.4): what pahole's dwarf_loader reads from
// each DW_AT_location.

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
	w.noteLocList(u, loc.Val)
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
