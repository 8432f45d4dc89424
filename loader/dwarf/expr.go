package dwarf

import (
	"encoding/binary"
	"fmt"
)

// Op is one operation of a DWARF expression.
//
// Args holds the operands in order: constants (signed ones as int64 bits),
// register numbers, offsets, sizes, indexes (DW_OP_addrx and DW_OP_constx
// keep the .debug_addr index: see Data.Addr). DIE offsets that the encoding
// gives relative to the unit (DW_OP_call2/call4, the type operands of
// DW_OP_const_type, regval_type, deref_type, xderef_type, convert,
// reinterpret and their GNU forms, DW_OP_GNU_parameter_ref) are converted
// to absolute .debug_info offsets, except 0 (the generic type), which
// stays 0. Block holds the inner expression of DW_OP_entry_value, the value
// of DW_OP_implicit_value and the constant of DW_OP_const_type.
//
// Operand layout per operation:
//
//	addr                    Args[0] address
//	constNu/s, constu/s     Args[0] value
//	pick, deref_size, ...   Args[0] the 1-byte operand
//	plus_uconst, regx,
//	piece, addrx, constx    Args[0]
//	bregN, fbreg            Args[0] signed offset
//	bregx                   Args[0] register, Args[1] signed offset
//	bit_piece               Args[0] size, Args[1] offset (bits)
//	skip, bra               Args[0] signed 2-byte displacement
//	call2/4, call_ref       Args[0] DIE offset
//	implicit_value          Args[0] length, Block value
//	entry_value             Args[0] length, Block inner expression
//	implicit_pointer        Args[0] DIE offset, Args[1] signed byte offset
//	const_type              Args[0] type, Args[1] size, Block value
//	regval_type             Args[0] register, Args[1] type
//	deref_type, xderef_type Args[0] size, Args[1] type
//	convert, reinterpret    Args[0] type
//	GNU_parameter_ref       Args[0] DIE offset
//	GNU_variable_value      Args[0] DIE offset
type Op struct {
	Code   OpCode
	Args   [2]uint64
	Block  []byte
	Offset int // offset of the operation in the expression
}

// ExprReader iterates over the operations of an expression without
// allocating.
type ExprReader struct {
	expr     []byte
	pos      int
	addrSize int
	offSize  int
	version  uint16
	unitOff  uint64
	unitIdx  int
	le       bool
	err      error
}

// NewExprReader returns a reader of expr, an expression of unit u (which
// gives the address and offset sizes and the base of unit-relative DIE
// offsets). With a nil u it assumes 8-byte addresses, 32-bit DWARF 5 and
// leaves unit-relative offsets as they are. A nil order means little
// endian.
func NewExprReader(expr []byte, u *Unit, order binary.ByteOrder) ExprReader {
	x := ExprReader{expr: expr, addrSize: 8, offSize: 4, version: 5, unitIdx: -1, le: true}
	switch order {
	case nil, binary.LittleEndian:
	case binary.BigEndian:
		x.le = false
	default:
		// Another ByteOrder: ask it (probe escapes to the heap, so the
		// common orders above do not get here).
		var probe [2]byte
		order.PutUint16(probe[:], 1)
		x.le = probe[0] == 1
	}
	if u != nil {
		x.addrSize = int(u.AddrSize)
		x.offSize = u.OffsetSize()
		x.version = u.Version
		x.unitOff = u.Offset
		x.unitIdx = u.Index
	}
	return x
}

// Err returns the error that stopped Next, or nil.
func (x *ExprReader) Err() error { return x.err }

func (x *ExprReader) fail(off int, err error) {
	if x.err == nil {
		x.err = &DecodeError{Section: "DWARF expression", Offset: uint64(off), Unit: x.unitIdx, Err: err}
	}
}

// Next decodes the next operation into op. It returns false at the end of
// the expression or on error (see Err).
func (x *ExprReader) Next(op *Op) bool {
	if x.err != nil || x.pos >= len(x.expr) {
		return false
	}
	start := x.pos
	c := OpCode(x.expr[start])
	x.pos++
	*op = Op{Code: c, Offset: start}
	switch {
	case c >= OpLit0 && c <= OpLit31, c >= OpReg0 && c <= OpReg31:
		return true
	case c >= OpBreg0 && c <= OpBreg31:
		op.Args[0] = uint64(x.sleb())
		return x.ok()
	}
	switch c {
	case OpDeref, OpDup, OpDrop, OpOver, OpSwap, OpRot, OpXderef, OpAbs, OpAnd,
		OpDiv, OpMinus, OpMod, OpMul, OpNeg, OpNot, OpOr, OpPlus, OpShl, OpShr,
		OpShra, OpXor, OpEq, OpGe, OpGt, OpLe, OpLt, OpNe, OpNop,
		OpPushObjectAddress, OpFormTlsAddress, OpCallFrameCfa, OpStackValue,
		OpGNUPushTlsAddress, OpGNUUninit:
	case OpAddr:
		op.Args[0] = x.fixed(x.addrSize)
	case OpConst1u, OpPick, OpDerefSize, OpXderefSize:
		op.Args[0] = x.fixed(1)
	case OpConst1s:
		op.Args[0] = uint64(int64(int8(x.fixed(1))))
	case OpConst2u:
		op.Args[0] = x.fixed(2)
	case OpConst2s, OpSkip, OpBra:
		op.Args[0] = uint64(int64(int16(x.fixed(2))))
	case OpConst4u:
		op.Args[0] = x.fixed(4)
	case OpConst4s:
		op.Args[0] = uint64(int64(int32(x.fixed(4))))
	case OpConst8u, OpConst8s:
		op.Args[0] = x.fixed(8)
	case OpConstu, OpPlusUconst, OpRegx, OpPiece, OpAddrx, OpConstx,
		OpGNUAddrIndex, OpGNUConstIndex:
		op.Args[0] = x.uleb()
	case OpConsts, OpFbreg:
		op.Args[0] = uint64(x.sleb())
	case OpBregx:
		op.Args[0] = x.uleb()
		op.Args[1] = uint64(x.sleb())
	case OpBitPiece:
		op.Args[0] = x.uleb()
		op.Args[1] = x.uleb()
	case OpCall2:
		op.Args[0] = x.unitRef(x.fixed(2))
	case OpCall4, OpGNUParameterRef:
		op.Args[0] = x.unitRef(x.fixed(4))
	case OpCallRef, OpGNUVariableValue:
		op.Args[0] = x.fixed(x.offSize)
	case OpImplicitValue, OpEntryValue, OpGNUEntryValue:
		n := x.uleb()
		op.Args[0] = n
		op.Block = x.block(n)
	case OpImplicitPointer, OpGNUImplicitPointer:
		if x.version <= 2 {
			op.Args[0] = x.fixed(x.addrSize)
		} else {
			op.Args[0] = x.fixed(x.offSize)
		}
		op.Args[1] = uint64(x.sleb())
	case OpConstType, OpGNUConstType:
		op.Args[0] = x.unitRef(x.uleb())
		n := x.fixed(1)
		op.Args[1] = n
		op.Block = x.block(n)
	case OpRegvalType, OpGNURegvalType:
		op.Args[0] = x.uleb()
		op.Args[1] = x.unitRef(x.uleb())
	case OpDerefType, OpGNUDerefType, OpXderefType:
		op.Args[0] = x.fixed(1)
		op.Args[1] = x.unitRef(x.uleb())
	case OpConvert, OpGNUConvert, OpReinterpret, OpGNUReinterpret:
		op.Args[0] = x.unitRef(x.uleb())
	default:
		x.fail(start, fmt.Errorf("unsupported operation 0x%x (%v)", uint8(c), c))
		return false
	}
	return x.ok()
}

// ok reports whether decoding the current operation succeeded.
func (x *ExprReader) ok() bool { return x.err == nil }

func (x *ExprReader) truncated(what string) {
	x.fail(x.pos, fmt.Errorf("%w: %s past the end of the expression", ErrTruncated, what))
}

func (x *ExprReader) fixed(n int) uint64 {
	if x.err != nil {
		return 0
	}
	if !validSize(n) {
		x.fail(x.pos, fmt.Errorf("unsupported operand size %d", n))
		return 0
	}
	if n > len(x.expr)-x.pos {
		x.truncated(fmt.Sprintf("%d-byte operand", n))
		return 0
	}
	v := getN(x.expr[x.pos:], n, x.le)
	x.pos += n
	return v
}

func (x *ExprReader) uleb() uint64 {
	if x.err != nil {
		return 0
	}
	v, n := uleb(x.expr, x.pos)
	if n < 0 {
		x.fail(x.pos, errLEB)
		return 0
	}
	x.pos = n
	return v
}

func (x *ExprReader) sleb() int64 {
	if x.err != nil {
		return 0
	}
	v, n := sleb(x.expr, x.pos)
	if n < 0 {
		x.fail(x.pos, errLEB)
		return 0
	}
	x.pos = n
	return v
}

func (x *ExprReader) block(n uint64) []byte {
	if x.err != nil {
		return nil
	}
	if n > uint64(len(x.expr)-x.pos) {
		x.truncated(fmt.Sprintf("%d-byte block", n))
		return nil
	}
	end := x.pos + int(n)
	b := x.expr[x.pos:end:end]
	x.pos = end
	return b
}

// unitRef converts a unit-relative DIE offset to an absolute one; 0 stays 0.
func (x *ExprReader) unitRef(off uint64) uint64 {
	if off == 0 || x.err != nil {
		return off
	}
	return off + x.unitOff
}
