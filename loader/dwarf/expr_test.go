package dwarf

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// TestExprOperands decodes hand-built expressions covering every operand
// shape, with 8-byte addresses, 32-bit DWARF 5 and a unit at 0x1000 (so
// unit-relative DIE offsets come out plus 0x1000).
func TestExprOperands(t *testing.T) {
	u := &Unit{Index: 3, Offset: 0x1000, Version: 5, AddrSize: 8}
	u64 := &Unit{Index: 4, Offset: 0x2000, Version: 5, AddrSize: 4, Format64: true}
	u2 := &Unit{Index: 5, Offset: 0x3000, Version: 2, AddrSize: 4}
	tests := []struct {
		name string
		u    *Unit
		expr []byte
		want []Op
	}{
		{"no operands", u, []byte{0x06, 0x12, 0x22, 0x96, 0x9c, 0x9f, 0xe0, 0xf0},
			[]Op{{Code: OpDeref}, {Code: OpDup, Offset: 1}, {Code: OpPlus, Offset: 2}, {Code: OpNop, Offset: 3}, {Code: OpCallFrameCfa, Offset: 4}, {Code: OpStackValue, Offset: 5}, {Code: OpGNUPushTlsAddress, Offset: 6}, {Code: OpGNUUninit, Offset: 7}}},
		{"lit reg", u, []byte{0x30, 0x4f, 0x50, 0x6f},
			[]Op{{Code: OpLit0}, {Code: OpLit31, Offset: 1}, {Code: OpReg0, Offset: 2}, {Code: OpReg31, Offset: 3}}},
		{"addr 8", u, []byte{0x03, 1, 2, 3, 4, 5, 6, 7, 8},
			[]Op{{Code: OpAddr, Args: [2]uint64{0x0807060504030201}}}},
		{"addr 4", u64, []byte{0x03, 1, 2, 3, 4},
			[]Op{{Code: OpAddr, Args: [2]uint64{0x04030201}}}},
		{"const1u/1s", u, []byte{0x08, 0xff, 0x09, 0xff},
			[]Op{{Code: OpConst1u, Args: [2]uint64{255}}, {Code: OpConst1s, Args: [2]uint64{^uint64(0)}, Offset: 2}}},
		{"const2u/2s", u, []byte{0x0a, 0xfe, 0xff, 0x0b, 0xfe, 0xff},
			[]Op{{Code: OpConst2u, Args: [2]uint64{0xfffe}}, {Code: OpConst2s, Args: [2]uint64{uint64(^uint64(1))}, Offset: 3}}},
		{"const4u/4s", u, []byte{0x0c, 0, 0, 0, 0x80, 0x0d, 0, 0, 0, 0x80},
			[]Op{{Code: OpConst4u, Args: [2]uint64{0x80000000}}, {Code: OpConst4s, Args: [2]uint64{uint64(0xffffffff80000000)}, Offset: 5}}},
		{"const8", u, []byte{0x0e, 1, 0, 0, 0, 0, 0, 0, 0x80, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
			[]Op{{Code: OpConst8u, Args: [2]uint64{0x8000000000000001}}, {Code: OpConst8s, Args: [2]uint64{^uint64(0)}, Offset: 9}}},
		{"constu/consts", u, []byte{0x10, 0xe5, 0x8e, 0x26, 0x11, 0x7f},
			[]Op{{Code: OpConstu, Args: [2]uint64{624485}}, {Code: OpConsts, Args: [2]uint64{^uint64(0)}, Offset: 4}}},
		{"1-byte operands", u, []byte{0x15, 2, 0x94, 4, 0x95, 8},
			[]Op{{Code: OpPick, Args: [2]uint64{2}}, {Code: OpDerefSize, Args: [2]uint64{4}, Offset: 2}, {Code: OpXderefSize, Args: [2]uint64{8}, Offset: 4}}},
		{"skip bra", u, []byte{0x2f, 0xfd, 0xff, 0x28, 3, 0},
			[]Op{{Code: OpSkip, Args: [2]uint64{uint64(^uint64(2))}}, {Code: OpBra, Args: [2]uint64{3}, Offset: 3}}},
		{"uleb operands", u, []byte{0x23, 0x80, 0x01, 0x90, 17, 0x93, 8, 0xa1, 3, 0xa2, 4, 0xfb, 5, 0xfc, 6},
			[]Op{{Code: OpPlusUconst, Args: [2]uint64{128}}, {Code: OpRegx, Args: [2]uint64{17}, Offset: 3}, {Code: OpPiece, Args: [2]uint64{8}, Offset: 5},
				{Code: OpAddrx, Args: [2]uint64{3}, Offset: 7}, {Code: OpConstx, Args: [2]uint64{4}, Offset: 9}, {Code: OpGNUAddrIndex, Args: [2]uint64{5}, Offset: 11}, {Code: OpGNUConstIndex, Args: [2]uint64{6}, Offset: 13}}},
		{"breg fbreg", u, []byte{0x75, 0x78, 0x8f, 0x08, 0x91, 0xb8, 0x7f},
			[]Op{{Code: OpBreg5, Args: [2]uint64{uint64(^uint64(7))}}, {Code: OpBreg31, Args: [2]uint64{8}, Offset: 2}, {Code: OpFbreg, Args: [2]uint64{uint64(^uint64(71))}, Offset: 4}}},
		{"bregx bit_piece", u, []byte{0x92, 33, 0x7c, 0x9d, 3, 5},
			[]Op{{Code: OpBregx, Args: [2]uint64{33, uint64(^uint64(3))}}, {Code: OpBitPiece, Args: [2]uint64{3, 5}, Offset: 3}}},
		{"calls", u, []byte{0x98, 0x10, 0x00, 0x99, 0x20, 0, 0, 0, 0x9a, 0x30, 0, 0, 0, 0xfa, 0x40, 0, 0, 0},
			[]Op{{Code: OpCall2, Args: [2]uint64{0x1010}}, {Code: OpCall4, Args: [2]uint64{0x1020}, Offset: 3}, {Code: OpCallRef, Args: [2]uint64{0x30}, Offset: 8}, {Code: OpGNUParameterRef, Args: [2]uint64{0x1040}, Offset: 13}}},
		{"call_ref 64-bit", u64, []byte{0x9a, 0x30, 0, 0, 0, 0, 0, 0, 1},
			[]Op{{Code: OpCallRef, Args: [2]uint64{0x0100000000000030}}}},
		{"implicit_value", u, []byte{0x9e, 3, 0xaa, 0xbb, 0xcc, 0x9f},
			[]Op{{Code: OpImplicitValue, Args: [2]uint64{3}, Block: []byte{0xaa, 0xbb, 0xcc}}, {Code: OpStackValue, Offset: 5}}},
		{"entry_value nested", u, []byte{0xa3, 4, 0xf3, 1, 0x55, 0x9f, 0x9f},
			[]Op{{Code: OpEntryValue, Args: [2]uint64{4}, Block: []byte{0xf3, 1, 0x55, 0x9f}}, {Code: OpStackValue, Offset: 6}}},
		{"implicit_pointer", u, []byte{0xa0, 0x44, 0x33, 0x22, 0x11, 0x7e, 0xf2, 1, 0, 0, 0, 8},
			[]Op{{Code: OpImplicitPointer, Args: [2]uint64{0x11223344, uint64(^uint64(1))}}, {Code: OpGNUImplicitPointer, Args: [2]uint64{1, 8}, Offset: 6}}},
		{"implicit_pointer v2 uses address size", u2, []byte{0xf2, 1, 0, 0, 0, 8},
			[]Op{{Code: OpGNUImplicitPointer, Args: [2]uint64{1, 8}}}},
		{"typed stack", u, []byte{0xa4, 0x2a, 2, 0xcd, 0xab, 0xa5, 5, 0x2b, 0xa6, 4, 0x2c, 0xa8, 0, 0xa9, 0x2d, 0xf7, 0x2e},
			[]Op{{Code: OpConstType, Args: [2]uint64{0x102a, 2}, Block: []byte{0xcd, 0xab}}, {Code: OpRegvalType, Args: [2]uint64{5, 0x102b}, Offset: 5},
				{Code: OpDerefType, Args: [2]uint64{4, 0x102c}, Offset: 8}, {Code: OpConvert, Offset: 11}, {Code: OpReinterpret, Args: [2]uint64{0x102d}, Offset: 13}, {Code: OpGNUConvert, Args: [2]uint64{0x102e}, Offset: 15}}},
		{"GNU typed stack", u, []byte{0xf4, 0x2a, 1, 7, 0xf5, 6, 0x2b, 0xf6, 8, 0x2c, 0xf9, 0x2d},
			[]Op{{Code: OpGNUConstType, Args: [2]uint64{0x102a, 1}, Block: []byte{7}}, {Code: OpGNURegvalType, Args: [2]uint64{6, 0x102b}, Offset: 4},
				{Code: OpGNUDerefType, Args: [2]uint64{8, 0x102c}, Offset: 7}, {Code: OpGNUReinterpret, Args: [2]uint64{0x102d}, Offset: 10}}},
		{"variable_value", u, []byte{0xfd, 0x10, 0x20, 0, 0},
			[]Op{{Code: OpGNUVariableValue, Args: [2]uint64{0x2010}}}},
		{"no unit", nil, []byte{0x03, 1, 0, 0, 0, 0, 0, 0, 0, 0x98, 5, 0},
			[]Op{{Code: OpAddr, Args: [2]uint64{1}}, {Code: OpCall2, Args: [2]uint64{5}, Offset: 9}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewExprReader(tt.expr, tt.u, binary.LittleEndian)
			var got []Op
			var op Op
			for x.Next(&op) {
				got = append(got, op)
			}
			if err := x.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d ops %+v, want %d %+v", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.Code != w.Code || g.Args != w.Args || g.Offset != w.Offset || !slices.Equal(g.Block, w.Block) {
					t.Errorf("op %d: got %v %+v, want %v %+v", i, g.Code, g, w.Code, w)
				}
			}
		})
	}
}

func TestExprBigEndian(t *testing.T) {
	u := &Unit{Version: 4, AddrSize: 4}
	x := NewExprReader([]byte{0x03, 1, 2, 3, 4, 0x0a, 0x12, 0x34}, u, binary.BigEndian)
	var op Op
	if !x.Next(&op) || op.Args[0] != 0x01020304 {
		t.Fatalf("addr %+v", op)
	}
	if !x.Next(&op) || op.Args[0] != 0x1234 {
		t.Fatalf("const2u %+v", op)
	}
}

// TestExprEntryValueNesting decodes an entry value inside an entry value.
func TestExprEntryValueNesting(t *testing.T) {
	inner := []byte{0x75, 0x10, 0x06} // breg5 16, deref
	mid := append([]byte{0xa3, byte(len(inner))}, inner...)
	expr := append([]byte{0xf3, byte(len(mid))}, mid...)
	expr = append(expr, 0x9f)
	x := NewExprReader(expr, nil, nil)
	var op Op
	if !x.Next(&op) || op.Code != OpGNUEntryValue || !slices.Equal(op.Block, mid) {
		t.Fatalf("outer %+v", op)
	}
	y := NewExprReader(op.Block, nil, nil)
	if !y.Next(&op) || op.Code != OpEntryValue || !slices.Equal(op.Block, inner) {
		t.Fatalf("middle %+v", op)
	}
	z := NewExprReader(op.Block, nil, nil)
	var names []OpCode
	for z.Next(&op) {
		names = append(names, op.Code)
	}
	if !slices.Equal(names, []OpCode{OpBreg5, OpDeref}) || z.Err() != nil {
		t.Fatalf("inner %v %v", names, z.Err())
	}
	if !x.Next(&op) || op.Code != OpStackValue || x.Next(&op) || x.Err() != nil {
		t.Fatalf("after the entry value: %+v %v", op, x.Err())
	}
}

// TestExprErrors checks that truncated and unknown operations stop the
// reader with a DecodeError at the right offset, without panicking.
func TestExprErrors(t *testing.T) {
	tests := []struct {
		name string
		expr []byte
		ok   int // operations decoded before the error
		off  uint64
	}{
		{"addr truncated", []byte{0x03, 1, 2, 3}, 0, 1},
		{"const2u truncated", []byte{0x0a, 1}, 0, 1},
		{"uleb truncated", []byte{0x10, 0x80, 0x80}, 0, 1},
		{"uleb too long", []byte{0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, 1},
		{"sleb truncated", []byte{0x30, 0x91, 0xff}, 1, 2},
		{"bregx second operand missing", []byte{0x92, 1}, 0, 2},
		{"entry_value block past the end", []byte{0x9f, 0xa3, 5, 0x55}, 1, 3},
		{"entry_value huge length", []byte{0xa3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, 11},
		{"implicit_value past the end", []byte{0x9e, 2, 1}, 0, 2},
		{"const_type size past the end", []byte{0xa4, 1, 8, 0, 0}, 0, 3},
		{"unknown opcode", []byte{0x30, 0x01}, 1, 1},
		{"GNU_encoded_addr unsupported", []byte{0xf1, 0}, 0, 0},
		{"call_ref truncated", []byte{0x9a, 0, 0}, 0, 1},
	}
	// A hand-made unit with a bad address size fails instead of panicking.
	x := NewExprReader([]byte{0x03}, &Unit{AddrSize: 0}, nil)
	var op Op
	if x.Next(&op) || x.Err() == nil {
		t.Error("DW_OP_addr with address size 0 decoded")
	}
	if _, err := (&Data{}).Addr(&Unit{AddrSize: 3}, 0); err == nil {
		t.Error("Addr with address size 3 succeeded")
	}
	if err := (&Data{}).LocList(&Unit{AddrSize: 0, Version: 5}, 0, nil); err == nil {
		t.Error("LocList with address size 0 succeeded")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewExprReader(tt.expr, &Unit{Index: 9, Version: 5, AddrSize: 8}, binary.LittleEndian)
			var op Op
			n := 0
			for x.Next(&op) {
				n++
			}
			var de *DecodeError
			if !errors.As(x.Err(), &de) {
				t.Fatalf("error %v, want a DecodeError", x.Err())
			}
			if n != tt.ok || de.Offset != tt.off || de.Unit != 9 {
				t.Errorf("decoded %d ops, error at %d in unit %d (%v); want %d ops, error at %d", n, de.Offset, de.Unit, de, tt.ok, tt.off)
			}
			if x.Next(&op) {
				t.Error("Next succeeded after an error")
			}
		})
	}
}
