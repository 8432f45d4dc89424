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

// renderer writes canonical content keys. Expansions of anonymous types are
// cached by id unless they took part in a reference cycle: a cycle is
// written as "<cycle^N>", N frames up, which depends on where the walk
// entered it, so such renderings are redone each time.
type renderer struct {
	t       *table
	memo    []string
	memoFP  []fingerprint
	onStack []int32  // 1-based stack position while a type is being expanded
	bufs    [][]byte // scratch buffer per nesting level, reused
	depth   int32
	spent   int64
	budget  int64
	err     error
}

func newRenderer(t *table) *renderer {
	return &renderer{
		t:       t,
		memo:    make([]string, len(t.types)),
		memoFP:  make([]fingerprint, len(t.types)),
		onStack: make([]int32, len(t.types)),
		budget:  budgetFixed + budgetFactor*int64(len(t.words)+3*len(t.types))*4,
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
func (r *renderer) key(id uint32) (string, fingerprint, error) {
	rt := &r.t.types[id]
	if !r.byName(rt) {
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

// byName reports whether references to rt are written as kind and name.
func (r *renderer) byName(rt *rawType) bool {
	return rt.name != 0 && refByName(rt.kind()) && r.t.strs.lookup(rt.name) != ""
}

// appendRef appends the reference form of type id: "void", kind and name,
// or the expansion. cyclic reports whether the expansion met a cycle.
func (r *renderer) appendRef(buf []byte, id uint32) (out []byte, cyclic bool) {
	if id == 0 {
		return append(buf, "void"...), false
	}
	rt := &r.t.types[id]
	if r.byName(rt) {
		return r.appendNameRef(buf, rt), false
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

func (r *renderer) appendNameRef(buf []byte, rt *rawType) []byte {
	buf = append(buf, rt.kind().String()...)
	if rt.kind() == btf.KindFwd {
		buf = append(buf, fwdFlavour(rt)...)
	}
	buf = append(buf, ' ')
	return appendName(buf, r.t.strs.lookup(rt.name))
}

func fwdFlavour(rt *rawType) string {
	if rt.kflag() {
		return " union"
	}
	return " struct"
}

// expand returns the content of type id for use inside another key.
func (r *renderer) expand(id uint32) (string, bool) {
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
func (r *renderer) appendContent(buf []byte, id uint32) ([]byte, bool) {
	rt := &r.t.types[id]
	k := rt.kind()
	w := r.t.extraOf(rt)
	name := r.t.strs.lookup(rt.name)
	cyc := false
	ref := func(id uint32) {
		var c bool
		buf, c = r.appendRef(buf, id)
		cyc = cyc || c
	}
	buf = append(buf, k.String()...)
	switch k {
	case btf.KindFwd:
		buf = appendNamed(append(buf, fwdFlavour(rt)...), name)
	case btf.KindTypeTag, btf.KindDeclTag:
		if rt.kflag() {
			buf = append(buf, " attr"...)
		}
		buf = strconv.AppendQuote(append(buf, ' '), name)
	default:
		buf = appendNamed(buf, name)
	}
	buf = appendStray(buf, rt)
	switch k {
	case btf.KindInt:
		buf = appendUint(append(buf, " size="...), uint64(rt.st))
		buf = append(buf, " enc="...)
		buf = appendIntEncoding(buf, w[0]>>24&0xf)
		buf = appendUint(append(buf, " off="...), uint64(w[0]>>16&0xff))
		buf = appendUint(append(buf, " bits="...), uint64(w[0]&0xff))
		if extra := w[0] & 0xf000ff00; extra != 0 {
			buf = append(buf, " reserved=0x"...)
			buf = strconv.AppendUint(buf, uint64(extra), 16)
		}
	case btf.KindFloat:
		buf = appendUint(append(buf, " size="...), uint64(rt.st))
	case btf.KindPtr, btf.KindTypedef:
		buf = append(buf, " -> "...)
		ref(rt.st)
	case btf.KindVolatile, btf.KindConst, btf.KindRestrict:
		buf = append(buf, '(')
		ref(rt.st)
		buf = append(buf, ')')
	case btf.KindTypeTag, btf.KindDeclTag:
		if k == btf.KindDeclTag {
			buf = append(buf, " idx="...)
			buf = strconv.AppendInt(buf, int64(int32(w[0])), 10)
		}
		buf = append(buf, " -> "...)
		ref(rt.st)
	case btf.KindArray:
		buf = appendUint(append(buf, '['), uint64(w[2]))
		buf = append(buf, "]("...)
		ref(w[0])
		buf = append(buf, "; index "...)
		ref(w[1])
		buf = append(buf, ')')
	case btf.KindStruct, btf.KindUnion:
		buf = appendUint(append(buf, " size="...), uint64(rt.st))
		if rt.kflag() {
			buf = append(buf, " bitfields"...)
		}
		buf = append(buf, " {"...)
		for i := 0; i+2 < len(w); i += 3 {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			if n := r.t.strs.lookup(w[i]); n != "" {
				buf = append(appendName(buf, n), ": "...)
			}
			ref(w[i+1])
			off := w[i+2]
			if rt.kflag() {
				buf = appendUint(append(buf, " @"...), uint64(off&0xffffff))
				if bits := off >> 24; bits != 0 {
					buf = appendUint(append(buf, ':'), uint64(bits))
				}
			} else {
				buf = appendUint(append(buf, " @"...), uint64(off))
			}
		}
		buf = append(buf, '}')
	case btf.KindEnum, btf.KindEnum64:
		buf = appendUint(append(buf, " size="...), uint64(rt.st))
		signed := rt.kflag()
		if signed {
			buf = append(buf, " signed {"...)
		} else {
			buf = append(buf, " unsigned {"...)
		}
		step := 2
		if k == btf.KindEnum64 {
			step = 3
		}
		for i := 0; i+step-1 < len(w); i += step {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(appendName(buf, r.t.strs.lookup(w[i])), '=')
			switch {
			case k == btf.KindEnum && signed:
				buf = strconv.AppendInt(buf, int64(int32(w[i+1])), 10)
			case k == btf.KindEnum:
				buf = appendUint(buf, uint64(w[i+1]))
			case signed:
				buf = strconv.AppendInt(buf, int64(uint64(w[i+2])<<32|uint64(w[i+1])), 10)
			default:
				buf = appendUint(buf, uint64(w[i+2])<<32|uint64(w[i+1]))
			}
		}
		buf = append(buf, '}')
	case btf.KindFunc:
		buf = appendLinkage(buf, rt.vlen(), "static", "global", "extern")
		buf = append(buf, " -> "...)
		ref(rt.st)
	case btf.KindFuncProto:
		buf = append(buf, '(')
		ref(rt.st)
		for i := 0; i+1 < len(w); i += 2 {
			if i == 0 {
				buf = append(buf, "; "...)
			} else {
				buf = append(buf, ", "...)
			}
			n := r.t.strs.lookup(w[i])
			if n == "" && w[i+1] == 0 {
				buf = append(buf, "..."...)
				continue
			}
			if n != "" {
				buf = append(appendName(buf, n), ": "...)
			}
			ref(w[i+1])
		}
		buf = append(buf, ')')
	case btf.KindVar:
		buf = appendLinkage(buf, w[0], "static", "global", "extern")
		buf = append(buf, " -> "...)
		ref(rt.st)
	case btf.KindDatasec:
		buf = appendUint(append(buf, " size="...), uint64(rt.st))
		buf = append(buf, " {"...)
		for i := 0; i+2 < len(w); i += 3 {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			ref(w[i])
			buf = appendUint(append(buf, " @"...), uint64(w[i+1]))
			buf = appendUint(append(buf, " size="...), uint64(w[i+2]))
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
// no meaning (they are zero in valid BTF), so that nothing BTF carries is
// lost from the key.
func appendStray(buf []byte, rt *rawType) []byte {
	k := rt.kind()
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindFwd, btf.KindEnum, btf.KindEnum64, btf.KindDeclTag, btf.KindTypeTag:
	default:
		if rt.kflag() {
			buf = append(buf, " kflag"...)
		}
	}
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFuncProto, btf.KindDatasec, btf.KindFunc:
	default:
		if v := rt.vlen(); v != 0 {
			buf = appendUint(append(buf, " vlen="...), uint64(v))
		}
	}
	if (k == btf.KindFwd || k == btf.KindArray) && rt.st != 0 {
		buf = appendUint(append(buf, " sizetype="...), uint64(rt.st))
	}
	if rt.info&0x60ff0000 != 0 {
		buf = append(buf, " info=0x"...)
		buf = strconv.AppendUint(buf, uint64(rt.info), 16)
	}
	return buf
}
