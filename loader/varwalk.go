package loader

import "github.com/btfgate/btfgate/loader/dwarf"

// Var is a CU-level DW_TAG_variable with the facts pahole's variable
// filter uses (spec §3.2). Name, Type, External and annotations come from
// the DW_AT_specification declaration when there is one, as in pahole.
type Var struct {
	Offset     uint64 // DIE offset of the defining DIE
	Name       string
	Type       TypeID
	Addr       uint64 // DW_OP_addr/addrx (+ DW_OP_plus_uconst) of the location
	Flags      VarFlags
	AnnotFirst uint32 // decl tag values in TypeTable.VarAnnots
	AnnotCount uint32
}

// VarFlags are boolean facts about a variable.
type VarFlags uint8

const (
	VarDeclaration VarFlags = 1 << iota // DW_AT_declaration on the DIE itself
	VarHasSpec                          // DW_AT_specification resolved to a DIE of the CU
	VarArtificial                       // DW_AT_artificial
	VarScopeGlobal                      // the location is a static address
	VarExternal                         // DW_AT_external (of the specification)
)

type rawVar struct {
	off      uint64
	name     string
	typeRef  uint64
	spec     uint64
	flags    VarFlags
	addr     uint64
	nannots  uint32
	annFirst uint32
}

// addVar records a CU-level variable and its decl tag children.
func (w *Walker) addVar(e *dwarf.Entry, u *dwarf.Unit) {
	v := rawVar{off: e.Offset, annFirst: uint32(len(w.vannots))}
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			v.name = bytesString(f.Bytes)
		case dwarf.AttrType:
			if f.Class == dwarf.ClassReference {
				v.typeRef = f.Val
			}
		case dwarf.AttrSpecification:
			if f.Class == dwarf.ClassReference {
				v.spec = f.Val
			}
		case dwarf.AttrDeclaration:
			v.flags |= VarDeclaration
		case dwarf.AttrArtificial:
			if f.Val != 0 {
				v.flags |= VarArtificial
			}
		case dwarf.AttrExternal:
			if f.Val != 0 {
				v.flags |= VarExternal
			}
		case dwarf.AttrLocation:
			if f.Class == dwarf.ClassExprLoc || f.Class == dwarf.ClassBlock {
				if addr, ok := w.staticAddr(f.Bytes, u); ok {
					v.addr = addr
					v.flags |= VarScopeGlobal
				}
			}
		}
	}
	w.vars = add(w.vars, v)
	w.byOff.record(e.Offset, slotVar+int32(len(w.vars)))
	if !e.Children {
		return
	}
	idx := len(w.vars) - 1
	w.push(frame{kind: frameVar, raw: int32(idx)})
}

// varAnnot records a btf_decl_tag child of a variable.
func (w *Walker) varAnnot(e *dwarf.Entry, owner int32) {
	if !w.opts.DeclTags || annotationName(e) != "btf_decl_tag" {
		return
	}
	value := ""
	if f := e.Field(dwarf.AttrConstValue); f != nil {
		value = bytesString(f.Bytes)
	}
	w.vannots = add(w.vannots, value)
	w.vars[owner].nannots++
}

// staticAddr is pahole's dwarf__location for the GLOBAL scope: the first
// op is DW_OP_addr or DW_OP_addrx (DW_OP_GNU_addr_index in a DWARF 4 split
// unit, which pahole does not read), plus a DW_OP_plus_uconst when it is the
// only other op.
func (w *Walker) staticAddr(expr []byte, u *dwarf.Unit) (uint64, bool) {
	x := dwarf.NewExprReader(expr, u, w.order)
	var op dwarf.Op
	if !x.Next(&op) {
		return 0, false
	}
	var addr uint64
	switch op.Code {
	case dwarf.OpAddr:
		addr = op.Args[0]
	case dwarf.OpAddrx, dwarf.OpGNUAddrIndex: // the GNU op: DWARF 4 split units
		a, err := w.data.Addr(u, op.Args[0])
		if err != nil {
			return 0, false
		}
		addr = a
	default:
		return 0, false
	}
	n := 1
	var plus uint64
	for x.Next(&op) {
		n++
		if n == 2 && op.Code == dwarf.OpPlusUconst {
			plus = op.Args[0]
		}
	}
	if n == 2 {
		addr += plus
	}
	return addr, true
}

// finishVars resolves the variables' specifications and types.
func (w *Walker) finishVars(t *TypeTable) {
	t.Vars = t.Vars[:0]
	t.VarAnnots = append(t.VarAnnots[:0], w.vannots...)
	for i := range w.vars {
		rv := &w.vars[i]
		v := Var{Offset: rv.off, Addr: rv.addr, Flags: rv.flags &^ VarExternal}
		src := rv
		if s := w.varAt(rv.spec); s >= 0 {
			v.Flags |= VarHasSpec
			src = &w.vars[s]
		}
		v.Name = src.name
		v.Type = w.resolve(src.typeRef)
		v.Flags |= src.flags & VarExternal
		v.AnnotFirst, v.AnnotCount = src.annFirst, src.nannots
		t.Vars = add(t.Vars, v)
	}
}

// varAt returns the raw index of the variable DIE at off, or -1.
func (w *Walker) varAt(off uint64) int {
	v := w.byOff.get(off)
	if v > slotVar && v <= slotParam {
		return int(v - slotVar - 1)
	}
	return -1
}

// VarSize is pahole's tag__size for a variable's type: 0 for void,
// declarations and incomplete arrays.
func (t *TypeTable) VarSize(id TypeID) uint64 {
	return t.tagSize(id, 0)
}

func (t *TypeTable) tagSize(id TypeID, depth int) uint64 {
	if id == 0 || depth > 64 {
		return 0
	}
	en := &t.Entries[id]
	switch en.Tag {
	case dwarf.TagPointerType, dwarf.TagReferenceType:
		return uint64(t.Unit.AddrSize)
	case dwarf.TagBaseType, dwarf.TagEnumerationType:
		return en.Size
	case dwarf.TagSubroutineType:
		return uint64(t.Unit.AddrSize)
	case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagUnionType, dwarf.TagInterfaceType:
		if en.Size == 1 && en.Count == 0 {
			return 0
		}
		return en.Size
	case dwarf.TagArrayType:
		n := uint64(1)
		for _, d := range t.Dims[en.First : en.First+en.Count] {
			n *= uint64(d)
		}
		return t.tagSize(en.Type, depth+1) * n
	}
	return t.tagSize(en.Type, depth+1)
}
