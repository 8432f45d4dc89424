package btfdiff

import (
	"fmt"
	"strconv"

	"github.com/btfgate/btfgate/btf"
)

// Limits that keep hostile input from exhausting the stack or memory:
// anonymous types nest a few levels deep in real BTF, and each expansion is
// rendered once, so keys stay near the size of the input.
const (
	maxNesting   = 1024
	budgetFixed  = 16 << 20 // bytes of keys allowed for any input
	budgetFactor = 64       // plus this many per byte of type section
)

// refByName reports whether a reference to a type of kind k that has a name
// is written as kind and name instead of being expanded. FUNC, VAR and
// DATASEC are included: a DATASEC entry or a decl tag points at them, and
// they are compared on their own.
func refByName(k Kind) bool {
	switch k {
	case btf.KindInt, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFwd,
		btf.KindTypedef, btf.KindFloat, btf.KindFunc, btf.KindVar, btf.KindDatasec:
		return true
	}
	return false
}

// renderer writes canonical content keys. Expansions of anonymous types are
// cached by id unless they took part in a reference cycle: a cycle is
// written as "<cycle^N>", N frames up, which depends on where the walk
// entered it, so such renderings are redone each time.
type renderer struct {
	t       *btf.Types
	memo    []string
	memoFP  []fingerprint
	onStack []int32  // 1-based stack position while a type is being expanded
	bufs    [][]byte // scratch buffer per nesting level, reused
	depth   int32
	spent   int64
	budget  int64
	err     error
}

// newRenderer returns a renderer for the types of t and its base, read
// from size bytes of BTF (which set the key budget).
func newRenderer(t *btf.Types, size int64) *renderer {
	n := int(t.NextID())
	return &renderer{
		t:       t,
		memo:    make([]string, n),
		memoFP:  make([]fingerprint, n),
		onStack: make([]int32, n),
		budget:  budgetFixed + budgetFactor*size,
	}
}

// scratch returns the empty scratch buffer of the current nesting level.
func (r *renderer) scratch() []byte {
	for int(r.depth) >= len(r.bufs) {
		r.bufs = append(r.bufs, make([]byte, 0, 256))
	}
	return r.bufs[r.depth][:0]
}

// key returns the content key of type id and its fingerprint, or an error
// when the input is too deeply nested or its keys would exceed the memory
// budget.
func (r *renderer) key(id btf.TypeID) (string, fingerprint, error) {
	if !r.byName(r.t.Type(id)) {
		s, cyclic := r.expand(id)
		if r.err != nil {
			return "", fingerprint{}, r.err
		}
		if cyclic {
			return s, fingerprintOf([]byte(s)), nil
		}
		return s, r.memoFP[id], nil
	}
	// Named types are never expanded inside other keys, so their key is
	// rendered exactly once and needs no cache.
	buf, _ := r.appendContent(r.scratch(), id)
	r.bufs[r.depth] = buf
	r.charge(len(buf))
	return string(buf), fingerprintOf(buf), r.err
}

func (r *renderer) charge(n int) {
	r.spent += int64(n)
	if r.spent > r.budget && r.err == nil {
		r.err = fmt.Errorf("content keys exceed %d bytes: anonymous types are nested pathologically", r.budget)
	}
}

// byName reports whether references to ty are written as kind and name.
func (r *renderer) byName(ty btf.Type) bool {
	return ty.NameOff() != 0 && refByName(ty.Kind()) && r.name(ty.NameOff()) != ""
}

// name returns the string at offset off.
func (r *renderer) name(off uint32) string { return r.t.Strings.String(off) }

// appendRef appends the reference form of type id: "void", kind and name,
// or the expansion. cyclic reports whether the expansion met a cycle.
func (r *renderer) appendRef(buf []byte, id btf.TypeID) (out []byte, cyclic bool) {
	if id == 0 {
		return append(buf, "void"...), false
	}
	if ty := r.t.Type(id); r.byName(ty) {
		return r.appendNameRef(buf, ty), false
	}
	s, cyclic := r.expand(id)
	// An expansion is charged each time it is copied into another key, so
	// anonymous types that each hold the next twice (keys doubling per
	// level) hit the budget before the copies are made.
	if r.charge(len(s)); r.err != nil {
		return buf, cyclic
	}
	return append(buf, s...), cyclic
}

func (r *renderer) appendNameRef(buf []byte, ty btf.Type) []byte {
	buf = append(buf, ty.Kind().String()...)
	if ty.Kind() == btf.KindFwd {
		buf = append(buf, fwdFlavour(ty)...)
	}
	buf = append(buf, ' ')
	return appendName(buf, r.name(ty.NameOff()))
}

func fwdFlavour(ty btf.Type) string {
	if ty.KindFlag() {
		return " union"
	}
	return " struct"
}

// expand returns the content of type id for use inside another key.
func (r *renderer) expand(id btf.TypeID) (string, bool) {
	if s := r.memo[id]; s != "" {
		return s, false
	}
	if r.err != nil {
		return "", false
	}
	if pos := r.onStack[id]; pos != 0 {
		return "<cycle^" + strconv.Itoa(int(r.depth-pos+1)) + ">", true
	}
	if r.depth >= maxNesting {
		r.err = fmt.Errorf("type %d: anonymous types nest deeper than %d levels", id, maxNesting)
		return "", false
	}
	r.depth++
	r.onStack[id] = r.depth
	buf, cyclic := r.appendContent(r.scratch(), id)
	r.bufs[r.depth] = buf
	r.onStack[id] = 0
	r.depth--
	s := string(buf)
	r.charge(len(s))
	if !cyclic && r.err == nil {
		r.memo[id] = s
		r.memoFP[id] = fingerprintOf(buf)
	}
	return s, cyclic
}

// appendContent appends the full content of type id.
func (r *renderer) appendContent(buf []byte, id btf.TypeID) ([]byte, bool) {
	ty := r.t.Type(id)
	k := ty.Kind()
	name := r.name(ty.NameOff())
	vlen := ty.Vlen()
	cyc := false
	ref := func(id btf.TypeID) {
		var c bool
		buf, c = r.appendRef(buf, id)
		cyc = cyc || c
	}
	buf = append(buf, k.String()...)
	switch k {
	case btf.KindFwd:
		buf = appendNamed(append(buf, fwdFlavour(ty)...), name)
	case btf.KindTypeTag, btf.KindDeclTag:
		if ty.KindFlag() {
			buf = append(buf, " attr"...)
		}
		buf = strconv.AppendQuote(append(buf, ' '), name)
	default:
		buf = appendNamed(buf, name)
	}
	buf = appendStray(buf, ty)
	switch k {
	case btf.KindInt:
		enc, off, bits := ty.Int()
		buf = appendUint(append(buf, " size="...), uint64(ty.Size()))
		buf = append(buf, " enc="...)
		buf = appendIntEncoding(buf, uint32(enc))
		buf = appendUint(append(buf, " off="...), uint64(off))
		buf = appendUint(append(buf, " bits="...), uint64(bits))
		if extra := ty.IntReserved(); extra != 0 {
			buf = append(buf, " reserved=0x"...)
			buf = strconv.AppendUint(buf, uint64(extra), 16)
		}
	case btf.KindFloat:
		buf = appendUint(append(buf, " size="...), uint64(ty.Size()))
	case btf.KindPtr, btf.KindTypedef:
		buf = append(buf, " -> "...)
		ref(ty.Ref())
	case btf.KindVolatile, btf.KindConst, btf.KindRestrict:
		buf = append(buf, '(')
		ref(ty.Ref())
		buf = append(buf, ')')
	case btf.KindTypeTag, btf.KindDeclTag:
		if k == btf.KindDeclTag {
			buf = append(buf, " idx="...)
			buf = strconv.AppendInt(buf, int64(ty.ComponentIdx()), 10)
		}
		buf = append(buf, " -> "...)
		ref(ty.Ref())
	case btf.KindArray:
		elem, index, n := ty.Array()
		buf = appendUint(append(buf, '['), uint64(n))
		buf = append(buf, "]("...)
		ref(elem)
		buf = append(buf, "; index "...)
		ref(index)
		buf = append(buf, ')')
	case btf.KindStruct, btf.KindUnion:
		buf = appendUint(append(buf, " size="...), uint64(ty.Size()))
		if ty.KindFlag() {
			buf = append(buf, " bitfields"...)
		}
		buf = append(buf, " {"...)
		for i := range vlen {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			m := ty.Member(i)
			if n := r.name(m.Name); n != "" {
				buf = append(appendName(buf, n), ": "...)
			}
			ref(m.Type)
			buf = appendUint(append(buf, " @"...), uint64(m.BitOffset))
			if m.BitfieldSize != 0 {
				buf = appendUint(append(buf, ':'), uint64(m.BitfieldSize))
			}
		}
		buf = append(buf, '}')
	case btf.KindEnum, btf.KindEnum64:
		buf = appendUint(append(buf, " size="...), uint64(ty.Size()))
		signed := ty.KindFlag()
		if signed {
			buf = append(buf, " signed {"...)
		} else {
			buf = append(buf, " unsigned {"...)
		}
		for i := range vlen {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			v := ty.EnumValue(i)
			buf = append(appendName(buf, r.name(v.Name)), '=')
			if signed {
				buf = strconv.AppendInt(buf, v.Value, 10)
			} else {
				buf = appendUint(buf, uint64(v.Value))
			}
		}
		buf = append(buf, '}')
	case btf.KindFunc:
		buf = appendLinkage(buf, ty.Linkage(), "static", "global", "extern")
		buf = append(buf, " -> "...)
		ref(ty.Ref())
	case btf.KindFuncProto:
		buf = append(buf, '(')
		ref(ty.Ref())
		for i := range vlen {
			if i == 0 {
				buf = append(buf, "; "...)
			} else {
				buf = append(buf, ", "...)
			}
			p := ty.Param(i)
			n := r.name(p.Name)
			if n == "" && p.Type == 0 {
				buf = append(buf, "..."...)
				continue
			}
			if n != "" {
				buf = append(appendName(buf, n), ": "...)
			}
			ref(p.Type)
		}
		buf = append(buf, ')')
	case btf.KindVar:
		buf = appendLinkage(buf, ty.Linkage(), "static", "global", "extern")
		buf = append(buf, " -> "...)
		ref(ty.Ref())
	case btf.KindDatasec:
		buf = appendUint(append(buf, " size="...), uint64(ty.Size()))
		buf = append(buf, " {"...)
		for i := range vlen {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			e := ty.Secinfo(i)
			ref(e.Type)
			buf = appendUint(append(buf, " @"...), uint64(e.Offset))
			buf = appendUint(append(buf, " size="...), uint64(e.Size))
		}
		buf = append(buf, '}')
	}
	return buf, cyc
}

func appendUint(buf []byte, v uint64) []byte { return strconv.AppendUint(buf, v, 10) }

// appendNamed appends " name" for a named type; nothing for an anonymous one.
func appendNamed(buf []byte, name string) []byte {
	if name == "" {
		return buf
	}
	return appendName(append(buf, ' '), name)
}

// appendName appends a name as is when it cannot be confused with the key
// syntax (C identifiers, dotted clone names, "unsigned int"), quoted otherwise.
func appendName(buf []byte, name string) []byte {
	if plainName(name) {
		return append(buf, name...)
	}
	return strconv.AppendQuote(buf, name)
}

func plainName(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '_', c == '.', c == '$', c == ' ':
		default:
			return false
		}
	}
	return true
}

func appendIntEncoding(buf []byte, enc uint32) []byte {
	if enc == 0 {
		return append(buf, "none"...)
	}
	first := true
	for _, f := range [...]struct {
		bit  uint32
		name string
	}{{1, "signed"}, {2, "char"}, {4, "bool"}} {
		if enc&f.bit != 0 {
			if !first {
				buf = append(buf, '|')
			}
			buf = append(buf, f.name...)
			first = false
			enc &^= f.bit
		}
	}
	if enc != 0 {
		if !first {
			buf = append(buf, '|')
		}
		buf = append(buf, "0x"...)
		buf = strconv.AppendUint(buf, uint64(enc), 16)
	}
	return buf
}

func appendLinkage(buf []byte, l uint32, names ...string) []byte {
	buf = append(buf, ' ')
	if int(l) < len(names) {
		return append(buf, names[l]...)
	}
	return appendUint(append(buf, "linkage="...), uint64(l))
}

// appendStray records kind_flag, vlen and size/type on kinds that give them
// no meaning (they are zero in valid BTF), and reserved bits of the info
// word, so that nothing BTF carries is lost from the key.
func appendStray(buf []byte, ty btf.Type) []byte {
	k := ty.Kind()
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindFwd, btf.KindEnum, btf.KindEnum64, btf.KindDeclTag, btf.KindTypeTag:
	default:
		if ty.KindFlag() {
			buf = append(buf, " kflag"...)
		}
	}
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFuncProto, btf.KindDatasec, btf.KindFunc:
	default:
		if v := ty.Vlen(); v != 0 {
			buf = appendUint(append(buf, " vlen="...), uint64(v))
		}
	}
	if (k == btf.KindFwd || k == btf.KindArray) && ty.Size() != 0 {
		buf = appendUint(append(buf, " sizetype="...), uint64(ty.Size()))
	}
	if ty.InfoReserved() != 0 {
		buf = append(buf, " info=0x"...)
		buf = strconv.AppendUint(buf, uint64(ty.Info()), 16)
	}
	return buf
}
