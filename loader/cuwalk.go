package loader

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// WalkOptions select what the CU walk records.
type WalkOptions struct {
	TypeTags      bool // record btf_type_tag annotations on pointers (feature type_tag)
	DeclTags      bool // record btf_decl_tag annotations (feature decl_tag)
	TrueSignature bool // feature true_signature: changes the ABI walk of clang clones
	Arch          Arch // calling convention for parameter checks (ArchFor(e_machine))
}

// Walker decodes compile units into type tables. It keeps its buffers
// between units; use one Walker per goroutine.
type Walker struct {
	data *dwarf.Data
	opts WalkOptions
	r    *dwarf.Reader
	e    dwarf.Entry

	raw     []rawType // type DIEs in DIE (pre-)order
	tableOf []TypeID  // raw index -> table id (0: void, e.g. unspecified type)
	tabOrd  []int32   // table order: raw indices
	// Members go straight into TypeTable.Members in DIE order as the walk
	// reads them (finish resolves their types, and regroups them only if a
	// struct's are not contiguous or some are static); these run beside.
	memRef    []uint64 // DW_AT_type as an absolute .debug_info offset, 0 if absent
	memAt     []uint64 // the byte offset memberAt matches, noMemberAt if none
	memNext   []int32  // the next member of the same struct or union, -1 for the last
	memFix    []memFix // bitfields whose offset needs their type's size
	memStatic []uint32 // static members: resolved as the others, then dropped
	// scattered: some struct's members are not contiguous (the members
	// of a type nested in a struct come between its own).
	scattered  bool
	regroup    []Member // finishMembers' copy of the walk's members
	dropMember []bool   // finishMembers: by member, static
	stack      []frame
	ptrTags    []int32    // raw indices of type tags, grouped per pointer
	params     []rawParam // parameters of subroutine types in DIE order
	start      []uint32
	// byOff maps a type DIE's offset to its raw index + 1, and the offsets
	// of subprograms, parameters and variables to their slots (funcwalk.go).
	byOff offsetIndex

	// Functions (see funcwalk.go).
	funcs     []rawFunc
	funcOrder []int32 // functions_table order: raw function indices
	fparams   []rawFuncParam
	fannots   []rawFuncAnnot
	funcFirst []uint32
	paramRaw  []int32  // FuncParams slot -> raw parameter
	paramSlot []uint32 // raw parameter -> FuncParams slot
	funcIndex []int32
	recoded   []bool
	ops       []dwarf.Op

	// Variables (see varwalk.go).
	vars    []rawVar
	vannots []string

	// The unit being walked, and the units of the table with the
	// references that found no DIE in them (mergewalk.go).
	cur         *dwarf.Unit
	spans       []unitSpan
	badRef      uint64
	skippedRefs int
	reserved    bool // the first walk reserved the buffers (reserve)
	// locEnd is one past the furthest location list start the walk read
	// in the input's own location section (part 0), 0 if none: see
	// LocationsRead.
	locEnd   uint64
	voidRefs []uint64 // references into walked units that found no type DIE
	// A group's copies of its partial units and its units in walk order
	// (WalkImporting).
	partBuf   []dwarf.Unit
	walkOrder []*dwarf.Unit
	groupPos  []int32 // by unit index: 1 + its position in the group, 0 if not in it
	placed    []bool  // by position in the group: walked

	order        binary.ByteOrder
	littleEndian bool
}

// rawType is a type DIE before its references are resolved.
type rawType struct {
	tag      dwarf.Tag
	last     uint32 // structs: the last member so far, in TypeTable.Members
	name     string
	ref      uint64 // DW_AT_type as an absolute .debug_info offset, 0 if absent
	size     uint64
	encoding uint8
	flags    EntryFlags
	first    uint32 // members: the first in TypeTable.Members (walk order); enums, params, dims: index into the table
	count    uint32
	tagFirst uint32 // pointers: type tags in Walker.ptrTags
	tagCount uint32
	off      uint64
}

// memFix is a DWARF 2-4 bitfield member (DW_AT_bit_offset) without
// DW_AT_byte_size: its bit offset needs its type's size, known in finish.
type memFix struct {
	idx       uint32 // in TypeTable.Members, walk order
	bitOffset uint64 // DW_AT_bit_offset
}

// noMemberAt is Walker.memAt's value for a member memberAt never matches.
const noMemberAt = ^uint64(0)

type frameKind uint8

const (
	frameScope      frameKind = iota // unit, function, lexical block, inlined subroutine
	frameStruct                      // struct, union, class
	frameEnum                        // enumeration
	frameSubroutine                  // subroutine type
	frameArray                       // array type
	framePointer                     // pointer (type tags)
	frameMember                      // struct member (decl tags)
	frameTypedef                     // typedef (decl tags)
	frameOther                       // any other type DIE with children
	frameFunc                        // subprogram
	frameParam                       // formal parameter of a subprogram (decl tags)
	frameVar                         // CU-level variable (decl tags)
)

type frame struct {
	kind      frameKind
	raw       int32 // raw index of the type this frame belongs to, -1 if none
	memberIdx int32 // frameStruct: members seen so far; frameMember: its index
}

// NewWalker returns a Walker over data, whose ELF file has byte order
// order (DWARF 2-4 bitfield offsets depend on it).
func NewWalker(data *dwarf.Data, order binary.ByteOrder, opts WalkOptions) *Walker {
	r := data.NewReader()
	r.Keep(walkedAttrs())
	return &Walker{data: data, opts: opts, r: r, order: order, littleEndian: order == binary.LittleEndian}
}

// walkedAttrs are the attributes the walk reads; the reader skips the
// others (DW_AT_decl_file, _line and _column above all, half of a member's
// attributes) without decoding them. A new attribute read anywhere in this
// package must be added here: TestWalkedAttrsCoverWalk checks it.
func walkedAttrs() *dwarf.AttrSet {
	return dwarf.NewAttrSet(
		dwarf.AttrAbstractOrigin, dwarf.AttrArtificial, dwarf.AttrBitOffset, dwarf.AttrBitSize,
		dwarf.AttrByteSize, dwarf.AttrCallingConvention, dwarf.AttrConstValue, dwarf.AttrCount,
		dwarf.AttrDataBitOffset, dwarf.AttrDataMemberLocation, dwarf.AttrDeclaration, dwarf.AttrEncoding,
		dwarf.AttrExternal, dwarf.AttrGNUVector, dwarf.AttrInline, dwarf.AttrLocation, dwarf.AttrLowPc,
		dwarf.AttrName, dwarf.AttrNoreturn, dwarf.AttrSpecification, dwarf.AttrType, dwarf.AttrUpperBound,
	)
}

// Walk decodes unit u into t (which it resets first).
func (w *Walker) Walk(u *dwarf.Unit, t *TypeTable) error {
	w.begin(t, u, u.Offset, u.End)
	w.spans = append(w.spans[:0], unitSpan{u: u, walked: true})
	if err := w.walkUnit(u, t, nil, nil); err != nil {
		return err
	}
	return w.finish(t)
}

// begin resets w and t for a table of the units in .debug_info's range
// [from, to); t takes u's attributes.
func (w *Walker) begin(t *TypeTable, u *dwarf.Unit, from, to uint64) {
	t.reset(u)
	w.reserve(t, to-from)
	w.raw = w.raw[:0]
	w.byOff.begin(from, to-from)
	w.tabOrd = w.tabOrd[:0]
	w.memRef = w.memRef[:0]
	w.memAt = w.memAt[:0]
	w.memNext = w.memNext[:0]
	w.memFix = w.memFix[:0]
	w.memStatic = w.memStatic[:0]
	w.scattered = false
	w.stack = w.stack[:0]
	w.ptrTags = w.ptrTags[:0]
	w.params = w.params[:0]
	w.funcs = w.funcs[:0]
	w.funcOrder = w.funcOrder[:0]
	w.fparams = w.fparams[:0]
	w.fannots = w.fannots[:0]
	w.vars = w.vars[:0]
	w.vannots = w.vannots[:0]
	w.badRef, w.skippedRefs = 0, 0
	w.locEnd = 0
	w.voidRefs = w.voidRefs[:0]
}

// walkUnit adds the DIEs of unit u to the walk's buffers, unless skip
// (if not nil) says to leave u out once its root DIE is read. pl, if not
// nil, has other units walked in the middle of u's (WalkImporting).
func (w *Walker) walkUnit(u *dwarf.Unit, t *TypeTable, skip func(*dwarf.Unit) bool, pl *placing) error {
	if err := w.r.Seek(u); err != nil {
		return err
	}
	w.cur = u
	e := &w.e
	if !w.r.Next(e) {
		return w.r.Err() // nil: an empty unit
	}
	if (skip != nil && skip(u)) || !e.Children {
		return nil
	}
	w.stack = add(w.stack[:0], frame{kind: frameScope, raw: -1})
	for len(w.stack) > 0 && w.r.Next(e) {
		if e.Tag == 0 {
			top := w.stack[len(w.stack)-1]
			w.stack = w.stack[:len(w.stack)-1]
			switch {
			case top.kind == frameFunc:
				w.funcOrder = add(w.funcOrder, top.raw)
			case top.kind == frameMember || top.kind == frameParam || top.kind == frameVar:
			case top.raw >= 0:
				w.close(top.raw)
			}
			continue
		}
		if pl != nil && len(w.stack) == 1 && pl.due(e.Offset) {
			// Top level, after the DIEs that first refer into other
			// units: walk those, then read this DIE again.
			off := e.Offset
			if err := pl.walkDue(off); err != nil {
				return err
			}
			w.cur = u
			w.stack = add(w.stack[:0], frame{kind: frameScope, raw: -1})
			if err := w.r.SeekOffset(u, off); err != nil {
				return err
			}
			continue
		}
		w.visit(e, t)
	}
	if err := w.r.Err(); err != nil || pl == nil {
		return err
	}
	return pl.walkDue(^uint64(0))
}

// visit handles one DIE according to the frame it appears in.
func (w *Walker) visit(e *dwarf.Entry, t *TypeTable) {
	top := &w.stack[len(w.stack)-1]
	switch top.kind {
	case frameStruct:
		switch e.Tag {
		case dwarf.TagMember:
			idx := top.memberIdx
			top.memberIdx++
			w.addMember(e, top.raw, t)
			if e.Children {
				w.push(frame{kind: frameMember, raw: top.raw, memberIdx: idx})
			}
			return
		case dwarf.TagInheritance:
			top.memberIdx++
			w.skip(e)
			return
		case dwarf.TagLLVMAnnotation:
			w.declTag(e, top.raw, -1, t)
			return
		}
	case frameEnum:
		if e.Tag == dwarf.TagEnumerator {
			w.addEnumerator(e, top.raw, t)
		}
		w.skip(e)
		return
	case frameSubroutine:
		switch e.Tag {
		case dwarf.TagFormalParameter:
			w.addParam(e, top.raw)
			w.skip(e)
			return
		case dwarf.TagUnspecifiedParameters:
			w.raw[top.raw].flags |= FlagVarargs
			w.skip(e)
			return
		}
	case frameArray:
		if e.Tag == dwarf.TagSubrangeType {
			w.addDim(e, top.raw, t)
		}
		w.skip(e)
		return
	case framePointer:
		if e.Tag == dwarf.TagLLVMAnnotation && w.opts.TypeTags && annotationName(e) == "btf_type_tag" {
			w.addTypeTag(e, top.raw)
		}
		w.skip(e)
		return
	case frameMember:
		if e.Tag == dwarf.TagLLVMAnnotation {
			w.declTag(e, top.raw, top.memberIdx, t)
		}
		w.skip(e)
		return
	case frameTypedef:
		if e.Tag == dwarf.TagLLVMAnnotation {
			w.declTag(e, top.raw, -1, t)
		}
		w.skip(e)
		return
	case frameOther:
		w.skip(e)
		return
	case frameFunc:
		if w.visitFunc(e, top, t) {
			return
		}
	case frameParam:
		if e.Tag == dwarf.TagLLVMAnnotation {
			w.funcAnnot(e, top.raw, top.memberIdx)
		}
		w.skip(e)
		return
	case frameVar:
		if e.Tag == dwarf.TagLLVMAnnotation {
			w.varAnnot(e, top.raw)
		}
		w.skip(e)
		return
	}

	// Scopes (and nested types inside structs and subroutine types).
	switch e.Tag {
	case dwarf.TagSubprogram:
		w.addFunc(e)
		return
	case dwarf.TagVariable:
		if len(w.stack) == 1 {
			w.addVar(e, w.cur)
			return
		}
	case dwarf.TagLexicalBlock, dwarf.TagInlinedSubroutine:
		if e.Children {
			w.push(frame{kind: frameScope, raw: -1})
		}
		return
	}
	if isTypeTag(e.Tag) {
		w.addType(e, t)
		return
	}
	w.skip(e)
}

func (w *Walker) push(f frame) { w.stack = add(w.stack, f) }

func (w *Walker) skip(e *dwarf.Entry) {
	if e.Children {
		w.r.SkipChildren()
	}
}

// isTypeTag reports whether pahole puts DIEs with this tag in types_table.
func isTypeTag(tag dwarf.Tag) bool {
	switch tag {
	case dwarf.TagBaseType, dwarf.TagPointerType, dwarf.TagConstType, dwarf.TagVolatileType,
		dwarf.TagRestrictType, dwarf.TagAtomicType, dwarf.TagTypedef, dwarf.TagStructureType,
		dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType, dwarf.TagEnumerationType,
		dwarf.TagArrayType, dwarf.TagSubroutineType, dwarf.TagUnspecifiedType,
		dwarf.TagPtrToMemberType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType,
		dwarf.TagStringType:
		return true
	}
	return false
}

// addType records a type DIE and opens a frame for its children.
func (w *Walker) addType(e *dwarf.Entry, t *TypeTable) {
	idx := int32(len(w.raw))
	rt := rawType{tag: e.Tag, off: e.Offset}
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			rt.name = bytesString(f.Bytes)
		case dwarf.AttrType:
			if f.Class == dwarf.ClassReference {
				rt.ref = f.Val
			}
		case dwarf.AttrByteSize:
			rt.size = f.Val
		case dwarf.AttrEncoding:
			rt.encoding = uint8(f.Val)
		case dwarf.AttrDeclaration:
			if f.Val != 0 {
				rt.flags |= FlagDeclaration
			}
		case dwarf.AttrGNUVector:
			rt.flags |= FlagVector
		}
	}
	kind := frameOther
	switch e.Tag {
	case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
		kind = frameStruct
	case dwarf.TagEnumerationType:
		kind = frameEnum
		rt.first = uint32(len(t.Enums))
		if rt.size == 0 {
			rt.size = 4
		}
	case dwarf.TagSubroutineType:
		kind = frameSubroutine
	case dwarf.TagArrayType:
		kind = frameArray
		rt.first = uint32(len(t.Dims))
		t.HasArray = true
	case dwarf.TagPointerType:
		kind = framePointer
		rt.tagFirst = uint32(len(w.ptrTags))
	case dwarf.TagTypedef:
		kind = frameTypedef
	}
	w.raw = add(w.raw, rt)
	w.byOff.record(e.Offset, int32(len(w.raw)))
	if e.Tag == dwarf.TagUnspecifiedType {
		// pahole keeps unspecified types out of the table: they read as void.
		w.skip(e)
		return
	}
	if e.Children {
		w.push(frame{kind: kind, raw: idx})
		return
	}
	w.close(idx)
}

// close numbers a type once its children are done (pahole's order).
func (w *Walker) close(idx int32) { w.tabOrd = add(w.tabOrd, idx) }

// addMember appends a member to t.Members with its bit offset computed
// the way pahole's class_member__cache_byte_size does; finish resolves its
// type, completes the offsets of DWARF 2-4 bitfields without a byte size
// (w.memFix) and drops static members (no location in a struct).
func (w *Walker) addMember(e *dwarf.Entry, owner int32, t *TypeTable) {
	var (
		m                            Member
		ref, loc, dataBitOff, bitOff uint64
		byteSize                     uint32
		hasLoc, hasDataBitOff        bool
	)
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			m.Name = bytesString(f.Bytes)
		case dwarf.AttrType:
			if f.Class == dwarf.ClassReference {
				ref = f.Val
			}
		case dwarf.AttrDataMemberLocation:
			hasLoc = true
			loc = memberLocation(f)
		case dwarf.AttrDataBitOffset:
			hasDataBitOff = true
			dataBitOff = f.Val
		case dwarf.AttrBitOffset:
			bitOff = f.Val
		case dwarf.AttrByteSize:
			byteSize = clamp32(f.Val)
		case dwarf.AttrBitSize:
			m.BitfieldSize = clamp32(f.Val)
		}
	}
	idx := uint32(len(t.Members))
	at := noMemberAt
	switch {
	case hasDataBitOff:
		m.BitOffset = dataBitOff
		if m.BitfieldSize != 0 {
			m.ByteOffset = uint32(dataBitOff / 8)
		}
		if dataBitOff%8 == 0 {
			at = dataBitOff / 8
		}
	case !hasLoc && w.raw[owner].tag != dwarf.TagUnionType:
		w.memStatic = add(w.memStatic, idx)
	default:
		if hasLoc {
			at = loc
		}
		m.BitOffset = loc * 8
		m.ByteOffset = uint32(loc)
		if m.BitfieldSize == 0 {
			break
		}
		if byteSize == 0 {
			w.memFix = add(w.memFix, memFix{idx: idx, bitOffset: bitOff})
			break
		}
		m.BitOffset += w.bitfieldOffset(uint64(byteSize), bitOff, m.BitfieldSize)
	}
	t.Members = add(t.Members, m)
	w.memRef = add(w.memRef, ref)
	w.memAt = add(w.memAt, at)
	w.memNext = add(w.memNext, -1)
	rt := &w.raw[owner]
	if rt.count == 0 {
		rt.first = idx
	} else {
		if rt.last+1 != idx {
			w.scattered = true
		}
		w.memNext[rt.last] = int32(idx)
	}
	rt.last = idx
	rt.count++
}

// bitfieldOffset is a DWARF 2-4 bitfield's offset in its storage unit of
// byteSize bytes, from the unit's first byte: DW_AT_bit_offset counts from
// the most significant bit.
func (w *Walker) bitfieldOffset(byteSize, bitOffset uint64, bitSize uint32) uint64 {
	if w.littleEndian {
		return byteSize*8 - bitOffset - uint64(bitSize)
	}
	return bitOffset
}

// clamp32 narrows a member's byte or bit size: no real one reaches 2^32,
// and a hostile one must not wrap around to a small value.
func clamp32(v uint64) uint32 { return uint32(min(v, math.MaxUint32)) }

// memberLocation reads DW_AT_data_member_location as pahole does: a
// constant, or an expression starting with DW_OP_plus_uconst/DW_OP_constu.
func memberLocation(f *dwarf.Field) uint64 {
	switch f.Class {
	case dwarf.ClassBlock, dwarf.ClassExprLoc:
		b := f.Bytes
		if len(b) == 0 || (b[0] != byte(dwarf.OpPlusUconst) && b[0] != byte(dwarf.OpConstu)) {
			return ^uint64(0)
		}
		v, _ := uleb(b[1:])
		return v
	}
	return f.Val
}

func uleb(b []byte) (uint64, int) {
	var v uint64
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, len(b)
}

func (w *Walker) addEnumerator(e *dwarf.Entry, owner int32, t *TypeTable) {
	var en Enumerator
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			en.Name = bytesString(f.Bytes)
		case dwarf.AttrConstValue:
			en.Value = f.Val
		}
	}
	t.Enums = add(t.Enums, en)
	w.raw[owner].count++
}

type rawParam struct {
	owner int32
	name  string
	ref   uint64
}

func (w *Walker) addParam(e *dwarf.Entry, owner int32) {
	p := rawParam{owner: owner}
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			p.name = bytesString(f.Bytes)
		case dwarf.AttrType:
			if f.Class == dwarf.ClassReference {
				p.ref = f.Val
			}
		}
	}
	w.params = add(w.params, p)
	w.raw[owner].count++
}

func (w *Walker) addDim(e *dwarf.Entry, owner int32, t *TypeTable) {
	var n uint64
	if v, ok := e.Val(dwarf.AttrUpperBound); ok {
		n = v + 1
		if v == math.MaxUint32 {
			n = 0 // an upper bound of -1 in 32 bits: a zero-length array, as pahole reads it
		}
	} else if v, ok := e.Val(dwarf.AttrCount); ok {
		n = v
	}
	// A count past 32 bits stays past them (clamp32): the converter
	// refuses it instead of writing it truncated.
	t.Dims = add(t.Dims, clamp32(n))
	w.raw[owner].count++
}

func (w *Walker) addTypeTag(e *dwarf.Entry, ptr int32) {
	value := ""
	if f := e.Field(dwarf.AttrConstValue); f != nil {
		value = bytesString(f.Bytes)
	}
	idx := int32(len(w.raw))
	w.raw = add(w.raw, rawType{tag: TagTypeTag, name: value, off: e.Offset})
	w.byOff.record(e.Offset, idx+1)
	w.ptrTags = add(w.ptrTags, idx)
	w.raw[ptr].tagCount++
	w.close(idx)
}

// declTag records a btf_decl_tag annotation on the type being built.
func (w *Walker) declTag(e *dwarf.Entry, target int32, component int32, t *TypeTable) {
	if !w.opts.DeclTags || annotationName(e) != "btf_decl_tag" {
		return
	}
	value := ""
	if f := e.Field(dwarf.AttrConstValue); f != nil {
		value = bytesString(f.Bytes)
	}
	// Target holds the raw index until finish maps it to a table id.
	t.DeclTags = add(t.DeclTags, DeclTag{Target: TypeID(target), Value: value, Component: component})
}

func annotationName(e *dwarf.Entry) string { return e.Name() }

// lookup maps a DIE offset to its raw index, or -1. Slots that finishFuncs
// and finishVars mark for subprograms, parameters and variables are not
// types: a DW_AT_type pointing at one reads as unknown.
func (w *Walker) lookup(off uint64) int {
	if v := w.byOff.get(off); v > 0 && v < slotFunc {
		return int(v) - 1
	}
	return -1
}

// resolve maps a DW_AT_type offset to a table id (0 for void, absent or
// unknown targets, as pahole does).
func (w *Walker) resolve(off uint64) TypeID {
	if off == 0 {
		return 0
	}
	i := w.lookup(off)
	if i < 0 {
		w.missed(off)
		return 0
	}
	return w.tableOf[i]
}

// finish numbers the entries in table order and resolves every reference.
func (w *Walker) finish(t *TypeTable) error {
	if cap(w.tableOf) < len(w.raw) {
		w.tableOf = make([]TypeID, len(w.raw))
	}
	w.tableOf = w.tableOf[:len(w.raw)]
	clear(w.tableOf)
	for pos, ri := range w.tabOrd {
		w.tableOf[ri] = TypeID(pos + 1)
	}
	w.byOff.seal()
	if len(w.spans) > 1 {
		// A merged table is made once: its entries get their exact size
		// rather than add's steps.
		t.Entries = slices.Grow(t.Entries, len(w.tabOrd))
	}

	// Decl tags: raw index -> table id; then keep pahole's order (by target
	// table id, then DIE order).
	for i := range t.DeclTags {
		t.DeclTags[i].Target = w.tableOf[t.DeclTags[i].Target]
	}
	sort.SliceStable(t.DeclTags, func(i, j int) bool { return t.DeclTags[i].Target < t.DeclTags[j].Target })

	w.groupParams(t)

	for _, ri := range w.tabOrd {
		rt := &w.raw[ri]
		en := TypeEntry{Tag: rt.tag, Name: rt.name, Size: rt.size, Encoding: rt.encoding,
			Flags: rt.flags, First: rt.first, Count: rt.count, Offset: rt.off}
		en.Type = w.resolve(rt.ref)
		switch rt.tag {
		case dwarf.TagPointerType:
			if rt.tagCount > 0 {
				// PTR -> last tag -> ... -> first tag -> pointee.
				tags := w.ptrTags[rt.tagFirst : rt.tagFirst+rt.tagCount]
				en.Type = w.tableOf[tags[len(tags)-1]]
			}
		case dwarf.TagEnumerationType:
			if u := w.lookup(rt.ref); u >= 0 && w.raw[u].tag == dwarf.TagBaseType {
				enc := dwarf.Encoding(w.raw[u].encoding)
				if enc == dwarf.EncSigned || enc == dwarf.EncSignedChar {
					en.Flags |= FlagSignedEnum
				}
			}
		case dwarf.TagBaseType:
			if t.IntID == 0 && rt.name == "int" {
				t.IntID = TypeID(len(t.Entries))
			}
		}
		t.Entries = add(t.Entries, en)
	}
	// Type tag chains.
	for _, ri := range w.tabOrd {
		rt := &w.raw[ri]
		if rt.tag != dwarf.TagPointerType || rt.tagCount == 0 {
			continue
		}
		tags := w.ptrTags[rt.tagFirst : rt.tagFirst+rt.tagCount]
		for k, ti := range tags {
			id := w.tableOf[ti]
			if k == 0 {
				t.Entries[id].Type = w.resolve(rt.ref)
			} else {
				t.Entries[id].Type = w.tableOf[tags[k-1]]
			}
		}
	}
	w.finishFuncs(t)
	w.finishVars(t)

	w.finishMembers(t)
	return w.refError()
}

// finishMembers resolves the members' types (in table order, as every
// other reference), completes the bit offsets that need a type's size, and
// regroups t.Members by struct in table order, dropping static members, if
// the walk left a struct's members scattered or kept a static one.
func (w *Walker) finishMembers(t *TypeTable) {
	for id := 1; id < len(t.Entries); id++ {
		en := &t.Entries[id]
		switch en.Tag {
		case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
			k := int32(en.First)
			for n := en.Count; n > 0; n-- {
				t.Members[k].Type = w.resolve(w.memRef[k])
				k = w.memNext[k]
			}
		}
	}
	for _, f := range w.memFix {
		m := &t.Members[f.idx]
		if byteSize := t.strippedSize(m.Type); byteSize != 0 {
			m.BitOffset += w.bitfieldOffset(byteSize, f.bitOffset, m.BitfieldSize)
		}
	}
	if !w.scattered && len(w.memStatic) == 0 {
		return
	}
	// Regroup: copy each struct's members in chain order, leaving out the
	// static ones.
	drop := slices.Grow(w.dropMember[:0], len(t.Members))[:len(t.Members)]
	clear(drop)
	for _, k := range w.memStatic {
		drop[k] = true
	}
	w.dropMember = drop
	walked := append(w.regroup[:0], t.Members...)
	w.regroup = walked
	t.Members = t.Members[:0]
	for id := 1; id < len(t.Entries); id++ {
		en := &t.Entries[id]
		switch en.Tag {
		case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
			k, n := int32(en.First), en.Count
			en.First = uint32(len(t.Members))
			en.Count = 0
			for ; n > 0; n-- {
				if !drop[k] {
					t.Members = append(t.Members, walked[k])
					en.Count++
				}
				k = w.memNext[k]
			}
		}
	}
}

// groupParams fills t.Params grouped by subroutine type (DIE order within
// each): parameters of subroutine types nested in another's parameter list
// come between its own.
func (w *Walker) groupParams(t *TypeTable) {
	start := w.growStart(len(w.raw))
	pos := uint32(0)
	for ri := range w.raw {
		start[ri] = pos
		if w.raw[ri].tag == dwarf.TagSubroutineType {
			w.raw[ri].first = pos
			pos += w.raw[ri].count
		}
	}
	t.Params = append(t.Params[:0], make([]Param, len(w.params))...)
	for _, p := range w.params {
		t.Params[start[p.owner]] = Param{Name: p.name, Type: w.resolve(p.ref)}
		start[p.owner]++
	}
}

// strippedSize is the byte size of id after typedefs and qualifiers.
func (t *TypeTable) strippedSize(id TypeID) uint64 {
	for n := 0; id != 0 && n < 64; n++ {
		en := &t.Entries[id]
		switch en.Tag {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, TagTypeTag:
			id = en.Type
			continue
		case dwarf.TagPointerType:
			return uint64(t.Unit.AddrSize)
		}
		return en.Size
	}
	return 0
}

// bytesString views DWARF string bytes as a string without copying. The
// bytes belong to the mapped input file, which outlives every table.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// add appends v to s, doubling s's array when it is full. A Walker's
// buffers and a TypeTable's slices are kept between units and grow to the
// largest unit's size; append's 1.25× steps for large slices would leave
// four times that size in garbage on the way, and the heap pages it takes
// are page faults. Beyond
// bigSlice elements (only the merged units of an LTO input get there) s
// grows by half: doubling could leave half of a buffer of hundreds of MB
// unused, and the old and new arrays live together while it is copied.
func add[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		grow := max(len(s), 64)
		if len(s) >= bigSlice {
			grow = len(s) / 2
		}
		s = slices.Grow(s, grow)
	}
	return append(s, v)
}

// reserve gives the largest buffers of a Walker's first walk room for n
// bytes of .debug_info (at most reserveFrom of them) at once. Grown by
// add, from empty, a buffer leaves copies of half, a quarter... of its
// size behind, which a module's encode, whose collector runs only at its
// memory limit (cmd/btfgate's setMemoryLimit), never gives back: about 1.8
// of a small module's 3.7 MB of walk buffers. The room a first walk does
// not use is fresh memory, never touched. Later walks grow the buffers by
// add: a reservation there would often be memory the collector freed,
// which the allocator clears, touching all of it (a kernel's encode held
// 10 MB more at its peak when every walk reserved).
func (w *Walker) reserve(t *TypeTable, n uint64) {
	if w.reserved {
		return
	}
	w.reserved = true
	n = min(n, reserveFrom)
	members, types := int(n/bytesPerMember), int(n/bytesPerType)
	t.Members = room(t.Members, members)
	w.memRef, w.memAt, w.memNext = room(w.memRef, members), room(w.memAt, members), room(w.memNext, members)
	t.Entries = room(t.Entries, types)
	w.raw, w.tabOrd = room(w.raw, types), room(w.tabOrd, types)
}

// The densest .debug_info seen has a member DIE every 13 bytes and a type
// DIE every 27 (a module's: the corpus kernel's has one every 27 and 48);
// reserve sizes for a little more. reserveFrom bounds what it reserves
// for (a merged walk of a whole LTO kernel is one walk).
const (
	bytesPerMember = 12
	bytesPerType   = 24
	reserveFrom    = 8 << 20
)

// room returns s with capacity for at least n elements, its contents kept.
func room[T any](s []T, n int) []T {
	if cap(s) < n {
		return slices.Grow(s, n-len(s))
	}
	return s
}

// bigSlice is the length from which add grows a slice by half.
const bigSlice = 1 << 20
