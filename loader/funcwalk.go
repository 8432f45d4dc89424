package loader

import (
	"strings"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// rawFunc is a subprogram DIE before references are resolved.
type rawFunc struct {
	name     string
	off      uint64
	origin   uint64 // DW_AT_abstract_origin
	spec     uint64 // DW_AT_specification
	retRef   uint64
	lowPC    uint64
	hasLowPC bool  // DW_AT_low_pc present (0 is an address in ET_REL files)
	cc       uint8 // DW_AT_calling_convention
	flags    FuncFlags
	nparams  int32
	nannots  int32
	parentFn int32 // enclosing function (for nothing but bookkeeping), -1 at CU level
}

// rawFuncParam is a formal parameter of a subprogram.
type rawFuncParam struct {
	owner    int32 // raw function index
	off      uint64
	idx      int32
	name     string
	typeRef  uint64
	origin   uint64
	hasConst bool
	loc      dwarf.Field // DW_AT_location (Attr 0 if absent)
}

type rawFuncAnnot struct {
	owner int32
	FuncAnnot
}

// Index tags in Walker.byOff: a slot holds kindBase+index+1.
const (
	slotFunc  = 1 << 28
	slotVar   = 1 << 29
	slotParam = 1 << 30
)

// addFunc records a DW_TAG_subprogram and opens its frame.
func (w *Walker) addFunc(e *dwarf.Entry) {
	idx := int32(len(w.funcs))
	f := rawFunc{off: e.Offset, parentFn: -1}
	for i := range e.Fields {
		fl := &e.Fields[i]
		switch fl.Attr {
		case dwarf.AttrName:
			f.name = bytesString(fl.Bytes)
		case dwarf.AttrType:
			if fl.Class == dwarf.ClassReference {
				f.retRef = fl.Val
			}
		case dwarf.AttrAbstractOrigin:
			if fl.Class == dwarf.ClassReference {
				f.origin = fl.Val
				f.flags |= FuncHasOrigin
			}
		case dwarf.AttrSpecification:
			if fl.Class == dwarf.ClassReference {
				f.spec = fl.Val
			}
		case dwarf.AttrLowPc:
			f.lowPC, f.hasLowPC = fl.Val, true
		case dwarf.AttrCallingConvention:
			f.cc = uint8(fl.Val)
		case dwarf.AttrInline:
			if fl.Val != 0 {
				f.flags |= FuncInline
			}
		case dwarf.AttrDeclaration:
			f.flags |= FuncDeclaration
		case dwarf.AttrExternal:
			f.flags |= FuncExternal
		case dwarf.AttrNoreturn:
			f.flags |= FuncNoreturn
		}
	}
	for i := len(w.stack) - 1; i >= 0; i-- {
		if w.stack[i].kind == frameFunc {
			f.parentFn = w.stack[i].raw
			break
		}
	}
	w.funcs = add(w.funcs, f)
	w.byOff.record(e.Offset, slotFunc+int32(len(w.funcs)))
	if e.Children {
		w.push(frame{kind: frameFunc, raw: idx})
		return
	}
	w.funcOrder = add(w.funcOrder, idx)
}

// visitFunc handles a child of a subprogram.
func (w *Walker) visitFunc(e *dwarf.Entry, top *frame, t *TypeTable) bool {
	switch e.Tag {
	case dwarf.TagFormalParameter:
		w.addFuncParam(e, top.raw)
		return true
	case dwarf.TagUnspecifiedParameters:
		w.funcs[top.raw].flags |= FuncVarargs
		w.skip(e)
		return true
	case dwarf.TagLLVMAnnotation:
		w.funcAnnot(e, top.raw, -1)
		return true
	case dwarf.TagVariable, dwarf.TagCallSite, dwarf.TagGNUCallSite, dwarf.TagLabel:
		w.skip(e)
		return true
	}
	return false
}

func (w *Walker) addFuncParam(e *dwarf.Entry, owner int32) {
	fn := &w.funcs[owner]
	p := rawFuncParam{owner: owner, off: e.Offset, idx: fn.nparams}
	fn.nparams++
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			p.name = bytesString(f.Bytes)
		case dwarf.AttrType:
			if f.Class == dwarf.ClassReference {
				p.typeRef = f.Val
			}
		case dwarf.AttrAbstractOrigin:
			if f.Class == dwarf.ClassReference {
				p.origin = f.Val
			}
		case dwarf.AttrConstValue:
			p.hasConst = true
		case dwarf.AttrLocation:
			p.loc = *f
		}
	}
	w.fparams = add(w.fparams, p)
	w.byOff.record(p.off, slotParam+int32(len(w.fparams)))
	if e.Children {
		w.push(frame{kind: frameParam, raw: owner, memberIdx: p.idx})
	}
}

// funcAnnot records a btf_decl_tag on a function or one of its parameters.
func (w *Walker) funcAnnot(e *dwarf.Entry, owner int32, component int32) {
	if !w.opts.DeclTags || annotationName(e) != "btf_decl_tag" {
		return
	}
	value := ""
	if f := e.Field(dwarf.AttrConstValue); f != nil {
		value = bytesString(f.Bytes)
	}
	w.fannots = add(w.fannots, rawFuncAnnot{owner: owner, FuncAnnot: FuncAnnot{Value: value, Component: component}})
	w.funcs[owner].nannots++
}

// finishFuncs builds t.Funcs in functions_table order and derives pahole's
// per-function facts. It runs after the types are numbered.
func (w *Walker) finishFuncs(t *TypeTable) {
	// Parameters grouped per function (DIE order within a function).
	start := w.growStart(len(w.funcs))
	pos := uint32(0)
	for fi := range w.funcs {
		start[fi] = pos
		pos += uint32(w.funcs[fi].nparams)
	}
	firsts := append(w.funcFirst[:0], start...)
	w.funcFirst = firsts
	t.FuncParams = t.FuncParams[:0]
	if cap(t.FuncParams) < len(w.fparams) {
		t.FuncParams = make([]FuncParam, len(w.fparams))
	}
	t.FuncParams = t.FuncParams[:len(w.fparams)]
	if cap(w.paramRaw) < len(w.fparams) {
		w.paramRaw = make([]int32, len(w.fparams))
	}
	w.paramRaw = w.paramRaw[:len(w.fparams)]
	for ri := range w.fparams {
		p := &w.fparams[ri]
		slot := start[p.owner]
		start[p.owner]++
		w.paramRaw[slot] = int32(ri)
		w.fparamSlot(ri, slot)
	}

	isClang := strings.Contains(t.Unit.Producer, "clang")
	t.Funcs = t.Funcs[:0]
	for _, fi := range w.funcOrder {
		rf := &w.funcs[fi]
		f := Func{Name: rf.name, Offset: rf.off, Origin: rf.origin, LowPC: rf.lowPC, Flags: rf.flags,
			First: firsts[fi], Count: uint32(rf.nparams)}
		if f.Name == "" {
			if o := w.funcAt(rf.origin); o >= 0 {
				f.Name = w.funcs[o].name
			} else if s := w.funcAt(rf.spec); s >= 0 {
				f.Name = w.funcs[s].name
			}
		}
		f.Ret = w.resolve(rf.retRef)
		if o := w.funcAt(rf.origin); o >= 0 {
			if w.funcs[o].flags&FuncNoreturn != 0 {
				f.Flags |= FuncNoreturnOrigin
			}
			if w.funcs[o].flags&FuncExternal != 0 {
				f.Flags |= FuncExternalOrigin
			}
			if f.Ret == 0 && rf.retRef == 0 {
				f.Ret = w.resolve(w.funcs[o].retRef)
			}
		}
		if isClang && rf.flags&FuncInline == 0 {
			cc := rf.cc
			if rf.flags&FuncHasOrigin != 0 {
				cc = 0
				if o := w.funcAt(rf.origin); o >= 0 {
					cc = w.funcs[o].cc
				}
			}
			if cc == dwCCNocall {
				f.Flags |= FuncSignatureChanged
			}
		}
		f.AnnotFirst = uint32(len(t.FuncAnnots))
		for _, a := range w.fannots {
			if a.owner == fi {
				t.FuncAnnots = add(t.FuncAnnots, a.FuncAnnot)
				f.AnnotCount++
			}
		}
		t.Funcs = add(t.Funcs, f)
	}
	w.funcIndex = w.funcIndex[:0]
	for range w.funcs {
		w.funcIndex = add(w.funcIndex, -1)
	}
	for i, fi := range w.funcOrder {
		w.funcIndex[fi] = int32(i)
	}
	analyzeFuncs(w, t, isClang)
}

// dwCCNocall is DW_CC_nocall (DWARF 5 §7.15: normal 1, program 2, nocall 3).
const dwCCNocall = 3

func (w *Walker) growStart(n int) []uint32 {
	if cap(w.start) < n {
		w.start = make([]uint32, n)
	}
	w.start = w.start[:n]
	return w.start
}

// funcAt returns the raw index of the subprogram at off, or -1.
func (w *Walker) funcAt(off uint64) int {
	v := w.byOff.get(off)
	if v > slotFunc && v <= slotVar {
		return int(v - slotFunc - 1)
	}
	return -1
}

// paramAt returns the FuncParams slot of the parameter DIE at off, or -1.
func (w *Walker) paramAt(off uint64) int {
	v := w.byOff.get(off)
	if v > slotParam {
		return int(w.paramSlot[v-slotParam-1])
	}
	return -1
}

func (w *Walker) fparamSlot(raw int, slot uint32) {
	if cap(w.paramSlot) < len(w.fparams) {
		w.paramSlot = make([]uint32, len(w.fparams))
	}
	w.paramSlot = w.paramSlot[:len(w.fparams)]
	w.paramSlot[raw] = slot
}
