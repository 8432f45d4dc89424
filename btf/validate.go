package btf

import "fmt"

// ValidationError is a rule of the kernel's BTF verifier (kernel/bpf/btf.c,
// as of Linux 6.1) that one type breaks: the kernel would refuse the whole
// BTF, and for vmlinux drop all of it.
type ValidationError struct {
	Type TypeID
	Kind Kind
	Name string
	Msg  string
}

func (e *ValidationError) Error() string {
	if e.Type == 0 {
		return "BTF the kernel would refuse: " + e.Msg
	}
	if e.Name != "" {
		return fmt.Sprintf("BTF the kernel would refuse: type [%d] %v %s: %s", e.Type, e.Kind, e.Name, e.Msg)
	}
	return fmt.Sprintf("BTF the kernel would refuse: type [%d] %v: %s", e.Type, e.Kind, e.Msg)
}

// ksymNameLen is the kernel's KSYM_NAME_LEN (6.1): names must be shorter.
const ksymNameLen = 512

// Validate checks t's own types against the kernel's BTF verifier: type
// references in range and of the right kind, the names each kind must
// have (C identifiers where the kernel wants them), parameters, DATASEC
// entries, decl tag components, and loops (a chain of modifiers or pointers
// that comes back to itself, a struct, union or array that holds itself by
// value). The error is a *ValidationError naming the first type at fault.
// A DATASEC entry that starts before the end of an entry before it is one:
// the kernel refuses it as "Invalid offset" (pahole 1.31's global_var
// writes such entries; the encoder leaves them out). So are a VAR whose
// type has no size (a FWD, through any modifiers), a DATASEC entry smaller
// than its VAR's type ("Invalid size"), and BTF that is not split and has
// no types at all ("No type found").
func (t *Types) Validate() error {
	if err := t.Err(); err != nil {
		return err
	}
	v := validator{t: t, first: t.FirstID(), next: t.NextID()}
	if v.first == 1 && len(t.offs) == 0 {
		return &ValidationError{Msg: "no types (the kernel refuses BTF that is not split and holds none)"}
	}
	for i := range t.offs {
		id := v.first + TypeID(i)
		if msg := v.check(t.Type(id)); msg != "" {
			return v.fail(id, msg)
		}
	}
	if err := v.loops(); err != nil {
		return err
	}
	return v.sizes()
}

type validator struct {
	t           *Types
	first, next TypeID
}

func (v *validator) fail(id TypeID, msg string) error {
	return &ValidationError{Type: id, Kind: v.t.Kind(id), Name: v.t.Name(id), Msg: msg}
}

// kind returns the kind of id, own or base (KindVoid for 0).
func (v *validator) kind(id TypeID) Kind { return v.t.Kind(id) }

// badRef reports whether ref would find fault with id: the check alone,
// so that callers format the label of a member or parameter only then.
func (v *validator) badRef(id TypeID, voidOK bool) bool { return id >= v.next || id == 0 && !voidOK }

// ref checks a type reference: in range, and void only where allowed
// (badRef); what names the reference in the message.
func (v *validator) ref(id TypeID, voidOK bool, what string) string {
	switch {
	case !v.badRef(id, voidOK):
		return ""
	case id >= v.next:
		return fmt.Sprintf("%s refers to type %d, past the last type %d", what, id, v.next-1)
	}
	return what + " is void"
}

func (v *validator) name(off uint32) string { return v.t.Strings.String(off) }

// identifier reports whether s is a name the kernel takes as a C
// identifier (btf_name_valid_identifier): [A-Za-z_][A-Za-z0-9_]*, shorter
// than KSYM_NAME_LEN.
func identifier(s string) bool {
	if s == "" || len(s) >= ksymNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alpha := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// sectionName reports whether s is a name the kernel takes for a DATASEC
// (btf_name_valid_section): an identifier that may also hold dots.
func sectionName(s string) bool {
	if s == "" || len(s) >= ksymNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// check returns what is wrong with one type, or "".
func (v *validator) check(ty Type) string {
	name := v.name(ty.NameOff())
	vlen := ty.Vlen()
	switch k := ty.Kind(); k {
	case KindInt:
		enc, off, bits := ty.Int()
		switch {
		case ty.Size() != 1 && ty.Size() != 2 && ty.Size() != 4 && ty.Size() != 8 && ty.Size() != 16:
			return fmt.Sprintf("INT size %d (want 1, 2, 4, 8 or 16)", ty.Size())
		case bits > 128 || off+bits > 128 || (off+bits+7)/8 > ty.Size():
			return fmt.Sprintf("INT bits %d at offset %d do not fit in %d bytes", bits, off, ty.Size())
		case enc&(enc-1) != 0:
			return fmt.Sprintf("INT encoding %#x combines signed, char and bool", enc)
		}
	case KindFloat:
		switch ty.Size() {
		case 2, 4, 8, 12, 16:
		default:
			return fmt.Sprintf("FLOAT size %d", ty.Size())
		}
	case KindPtr, KindConst, KindVolatile, KindRestrict:
		if ty.NameOff() != 0 {
			return fmt.Sprintf("%v has a name (%q)", k, name)
		}
		return v.ref(ty.Ref(), true, k.String())
	case KindTypedef:
		if !identifier(name) {
			return fmt.Sprintf("TYPEDEF name %q is not a C identifier", name)
		}
		return v.ref(ty.Ref(), true, "TYPEDEF")
	case KindTypeTag:
		if name == "" {
			return fmt.Sprintf("TYPE_TAG name %q", name)
		}
		return v.ref(ty.Ref(), true, "TYPE_TAG")
	case KindFwd:
		if !identifier(name) {
			return fmt.Sprintf("FWD name %q is not a C identifier", name)
		}
	case KindArray:
		elem, index, _ := ty.Array()
		if ty.NameOff() != 0 {
			return "ARRAY has a name"
		}
		if msg := v.ref(elem, false, "ARRAY element"); msg != "" {
			return msg
		}
		if msg := v.ref(index, false, "ARRAY index"); msg != "" {
			return msg
		}
		if v.kind(index) != KindInt {
			return fmt.Sprintf("ARRAY index type %d is a %v, not an INT", index, v.kind(index))
		}
	case KindStruct, KindUnion:
		if name != "" && !identifier(name) {
			return fmt.Sprintf("%v name %q is not a C identifier", k, name)
		}
		last := uint32(0)
		for i := 0; i < vlen; i++ {
			m := ty.Member(i)
			mname := v.name(m.Name)
			if mname != "" && !identifier(mname) {
				return fmt.Sprintf("member %d name %q is not a C identifier", i, mname)
			}
			if v.badRef(m.Type, false) {
				return v.ref(m.Type, false, fmt.Sprintf("member %d (%s)", i, mname))
			}
			if k == KindStruct && m.BitOffset < last {
				return fmt.Sprintf("member %d (%s) at bit %d, before the previous member's %d", i, mname, m.BitOffset, last)
			}
			last = m.BitOffset
			if k == KindUnion && m.BitOffset != 0 {
				return fmt.Sprintf("union member %d (%s) at bit %d, not 0", i, mname, m.BitOffset)
			}
			if (uint64(m.BitOffset)+7)/8 > uint64(ty.Size()) {
				return fmt.Sprintf("member %d (%s) at bit %d, past the size %d", i, mname, m.BitOffset, ty.Size())
			}
		}
	case KindEnum, KindEnum64:
		if name != "" && !identifier(name) {
			return fmt.Sprintf("%v name %q is not a C identifier", k, name)
		}
		switch ty.Size() {
		case 1, 2, 4, 8:
		default:
			return fmt.Sprintf("%v size %d", k, ty.Size())
		}
		for i := 0; i < vlen; i++ {
			if vn := v.name(ty.EnumValue(i).Name); !identifier(vn) {
				return fmt.Sprintf("value %d name %q is not a C identifier", i, vn)
			}
		}
	case KindFunc:
		// Dots are allowed: true_signature names clones by their symbol
		// (foo.constprop.0), which the kernels that take them accept.
		if !sectionName(name) || name[0] == '.' {
			return fmt.Sprintf("FUNC name %q is not a C identifier (dots allowed)", name)
		}
		if ty.Linkage() > 2 {
			return fmt.Sprintf("FUNC linkage %d", ty.Linkage())
		}
		if msg := v.ref(ty.Ref(), false, "FUNC prototype"); msg != "" {
			return msg
		}
		if v.kind(ty.Ref()) != KindFuncProto {
			return fmt.Sprintf("FUNC refers to type %d, a %v, not a FUNC_PROTO", ty.Ref(), v.kind(ty.Ref()))
		}
	case KindFuncProto:
		if ty.NameOff() != 0 {
			return "FUNC_PROTO has a name"
		}
		if msg := v.ref(ty.Ref(), true, "return type"); msg != "" {
			return msg
		}
		for i := 0; i < vlen; i++ {
			p := ty.Param(i)
			pname := v.name(p.Name)
			if p.Type == 0 {
				if i != vlen-1 || p.Name != 0 {
					return fmt.Sprintf("parameter %d (%s) is void and not the last, unnamed varargs entry", i, pname)
				}
				continue
			}
			if pname != "" && !identifier(pname) {
				return fmt.Sprintf("parameter %d name %q is not a C identifier", i, pname)
			}
			if v.badRef(p.Type, false) {
				return v.ref(p.Type, false, fmt.Sprintf("parameter %d (%s)", i, pname))
			}
		}
	case KindVar:
		if !identifier(name) {
			return fmt.Sprintf("VAR name %q is not a C identifier", name)
		}
		if ty.Linkage() > 2 {
			return fmt.Sprintf("VAR linkage %d", ty.Linkage())
		}
		if msg := v.ref(ty.Ref(), false, "VAR type"); msg != "" {
			return msg
		}
		if k := v.kind(ty.Ref()); k == KindFunc || k == KindFuncProto || k == KindVar || k == KindDatasec || k == KindDeclTag {
			return fmt.Sprintf("VAR of type %d, a %v", ty.Ref(), k)
		}
	case KindDatasec:
		return v.datasec(ty, name)
	case KindDeclTag:
		return v.declTag(ty, name)
	default:
		return fmt.Sprintf("unknown kind %d", k)
	}
	return ""
}

func (v *validator) datasec(ty Type, name string) string {
	if !sectionName(name) {
		return fmt.Sprintf("DATASEC name %q is not a section name", name)
	}
	if ty.Size() == 0 {
		return "DATASEC of size 0"
	}
	end := uint64(0)
	for i := 0; i < ty.Vlen(); i++ {
		e := ty.Secinfo(i)
		if v.badRef(e.Type, false) {
			return v.ref(e.Type, false, fmt.Sprintf("entry %d", i))
		}
		if k := v.kind(e.Type); k != KindVar {
			return fmt.Sprintf("entry %d is type %d, a %v, not a VAR", i, e.Type, k)
		}
		off, size := uint64(e.Offset), uint64(e.Size)
		if size == 0 || off+size > uint64(ty.Size()) {
			return fmt.Sprintf("entry %d (%s) at %#x size %d is empty or leaves the section (size %d)",
				i, v.t.Name(e.Type), e.Offset, e.Size, ty.Size())
		}
		if off < end {
			return fmt.Sprintf("entry %d (%s) at %#x overlaps an entry before it, which ends at %#x",
				i, v.t.Name(e.Type), e.Offset, end)
		}
		end = off + size
	}
	return ""
}

func (v *validator) declTag(ty Type, name string) string {
	if name == "" {
		return "DECL_TAG with an empty name"
	}
	if msg := v.ref(ty.Ref(), false, "DECL_TAG target"); msg != "" {
		return msg
	}
	idx := ty.ComponentIdx()
	target := v.t.Type(ty.Ref())
	switch target.Kind() {
	case KindStruct, KindUnion:
		if idx < -1 || int(idx) >= target.Vlen() {
			return fmt.Sprintf("component %d of a %v with %d members", idx, target.Kind(), target.Vlen())
		}
	case KindFunc:
		proto := v.t.Type(target.Ref())
		if idx < -1 || int(idx) >= proto.Vlen() {
			return fmt.Sprintf("component %d of a FUNC with %d parameters", idx, proto.Vlen())
		}
	case KindVar, KindTypedef:
		if idx != -1 {
			return fmt.Sprintf("component %d of a %v", idx, target.Kind())
		}
	default:
		return fmt.Sprintf("tags a %v", target.Kind())
	}
	return ""
}

// loops finds the loops the kernel's resolve pass refuses: a chain of
// modifiers and pointers with no struct, union, enum or function in it that
// comes back to itself, and a struct, union or array that holds itself by
// value (through members, array elements and modifiers other than PTR).
func (v *validator) loops() error {
	n := int(v.next - v.first)
	state := make([]uint8, n) // 0 new, 1 on the path, 2 done
	// byValue lists the types a type needs resolved before its own size
	// is known.
	byValue := func(ty Type, out []TypeID) []TypeID {
		switch ty.Kind() {
		case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindVar:
			return append(out, ty.Ref())
		case KindArray:
			elem, _, _ := ty.Array()
			return append(out, elem)
		case KindStruct, KindUnion:
			for i := 0; i < ty.Vlen(); i++ {
				out = append(out, ty.Member(i).Type)
			}
		}
		return out
	}
	if err := v.cycle(state, byValue, "holds itself by value"); err != nil {
		return err
	}
	for i := range state {
		state[i] = 0
	}
	modifiers := func(ty Type, out []TypeID) []TypeID {
		switch ty.Kind() {
		case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindPtr:
			return append(out, ty.Ref())
		}
		return out
	}
	return v.cycle(state, modifiers, "is a loop of modifiers and pointers that comes back to itself")
}

// cycle runs an iterative depth-first search over own types along edges
// and returns an error naming a type on the first cycle found.
func (v *validator) cycle(state []uint8, edges func(Type, []TypeID) []TypeID, msg string) error {
	type frame struct {
		id   TypeID
		next []TypeID
	}
	var stack []frame
	var buf []TypeID
	for i := range state {
		if state[i] != 0 {
			continue
		}
		root := v.first + TypeID(i)
		state[i] = 1
		stack = append(stack[:0], frame{root, edges(v.t.Type(root), buf[:0:0])})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.next) == 0 {
				state[top.id-v.first] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			to := top.next[0]
			top.next = top.next[1:]
			if to < v.first || to >= v.next {
				continue // void and base types: checked with the base
			}
			switch state[to-v.first] {
			case 1:
				return v.fail(to, msg)
			case 0:
				state[to-v.first] = 1
				stack = append(stack, frame{to, edges(v.t.Type(to), nil)})
			}
		}
	}
	return nil
}

// sizeKind says what the kernel's btf_type_id_size makes of a type.
type sizeKind uint8

const (
	sized   sizeKind = iota // a size the BTF states
	unsized                 // none: void, FWD, FUNC, FUNC_PROTO, DECL_TAG
	// native: a pointer somewhere in it, sized by the loading kernel's
	// pointer, which the BTF does not say.
	native
)

// typeSize resolves id's size as the kernel does: through modifiers,
// typedefs and VARs, and an array's elements times their count. It runs
// after loops, so every chain ends; depth bounds it all the same.
func (v *validator) typeSize(id TypeID, depth int) (uint64, sizeKind) {
	if id == 0 || depth > 1024 {
		return 0, unsized
	}
	ty := v.t.Type(id)
	switch ty.Kind() {
	case KindInt, KindEnum, KindEnum64, KindStruct, KindUnion, KindDatasec, KindFloat:
		return uint64(ty.Size()), sized
	case KindPtr:
		return 0, native
	case KindArray:
		elem, _, n := ty.Array()
		size, k := v.typeSize(elem, depth+1)
		return size * uint64(n), k
	case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindVar:
		return v.typeSize(ty.Ref(), depth+1)
	}
	return 0, unsized
}

// sizes checks what needs the types' sizes: every VAR's type has one, and
// every DATASEC entry is at least as large as its VAR's type.
func (v *validator) sizes() error {
	for i := range v.t.offs {
		id := v.first + TypeID(i)
		ty := v.t.Type(id)
		switch ty.Kind() {
		case KindVar:
			if _, k := v.typeSize(ty.Ref(), 0); k == unsized {
				return v.fail(id, fmt.Sprintf("VAR of type %d, which has no size", ty.Ref()))
			}
		case KindDatasec:
			for j := 0; j < ty.Vlen(); j++ {
				e := ty.Secinfo(j)
				if size, k := v.typeSize(e.Type, 0); k == sized && uint64(e.Size) < size {
					return v.fail(id, fmt.Sprintf("entry %d (%s) at %#x size %d is smaller than its type's %d bytes",
						j, v.t.Name(e.Type), e.Offset, e.Size, size))
				}
			}
		}
	}
	return nil
}
