package functions

import (
	"strconv"

	"github.com/btfgate/btfgate/btf"
)

// Prototypes for people (facts.Instance.Prototype): the C declaration of a
// saved state as its FUNC_PROTO would be emitted, e.g.
// "int tcp_v4_rcv(struct sk_buff *skb)", printed from the pre-dedup BTF.

// protoPrinter prints prototypes into one reused buffer.
type protoPrinter struct {
	types *btf.Types
	buf   []byte
}

// maxDeclDepth bounds the nesting of function pointer parameters printed;
// maxDeclChain the types followed in one declarator.
const (
	maxDeclDepth = 4
	maxDeclChain = 32
)

// prototype prints the declaration of s named name.
func (p *protoPrinter) prototype(name string, s *State) string {
	p.buf = p.appendDecl(p.buf[:0], s.ret, name, s, 0)
	return string(p.buf)
}

// declPart is one piece of a declarator: left of the name a pointer or a
// qualifier of one, or an opening parenthesis; right of it an array
// dimension, a parameter list or a closing parenthesis.
type declPart struct {
	kind byte // '*', 'c' const, 'v' volatile, 'r' restrict, '(' ; '[', 'f', ')'
	n    uint32
	id   btf.TypeID
}

// appendDecl appends the C declaration of name with type id. With fn, name
// is a function returning id whose parameters are fn's.
func (p *protoPrinter) appendDecl(b []byte, id btf.TypeID, name string, fn *State, depth int) []byte {
	t := p.types
	var leftArr, rightArr [8]declPart
	left, right := leftArr[:0], rightArr[:0]
	var qualArr [4]byte
	quals := qualArr[:0] // qualifiers of the base type
	wrapped := 0         // left parts already inside parentheses
	if fn != nil {
		right = append(right, declPart{kind: 'F'})
	}
	base := btf.TypeID(0)
chain:
	for n := 0; ; n++ {
		if id == 0 || n == maxDeclChain {
			break
		}
		v := t.Type(id)
		k := v.Kind()
		switch k {
		case btf.KindPtr:
			left = append(left, declPart{kind: '*'})
			id = v.Ref()
			continue
		case btf.KindConst, btf.KindVolatile, btf.KindRestrict:
			q := byte('c')
			if k == btf.KindVolatile {
				q = 'v'
			} else if k == btf.KindRestrict {
				q = 'r'
			}
			id = v.Ref()
			if t.Kind(skipTypeTags(t, id)) == btf.KindPtr {
				left = append(left, declPart{kind: q}) // the pointer is qualified
			} else if len(quals) < cap(quals) {
				quals = append(quals, q)
			}
			continue
		case btf.KindTypeTag:
			id = v.Ref()
			continue
		case btf.KindArray, btf.KindFuncProto:
			if len(left) > wrapped {
				left = append(left, declPart{kind: '('})
				right = append(right, declPart{kind: ')'})
				wrapped = len(left)
			}
			if k == btf.KindArray {
				elem, _, nelems := v.Array()
				right = append(right, declPart{kind: '[', n: nelems})
				id = elem
			} else {
				right = append(right, declPart{kind: 'f', id: id})
				id = v.Ref()
			}
			if len(left) == cap(left) || len(right) == cap(right) {
				return append(b, "..."...)
			}
			continue
		}
		base = id
		break chain
	}
	if len(left) == cap(left) {
		return append(b, "..."...)
	}
	for _, q := range quals {
		b = appendQual(b, q)
		b = append(b, ' ')
	}
	b = p.appendBase(b, base)
	if len(left) > 0 || name != "" || fn != nil {
		b = append(b, ' ')
	}
	for i := len(left) - 1; i >= 0; i-- {
		switch q := left[i].kind; q {
		case '*', '(':
			b = append(b, q)
		default:
			b = appendQual(b, q)
			if i > 0 || name != "" {
				b = append(b, ' ')
			}
		}
	}
	b = append(b, name...)
	for _, r := range right {
		switch r.kind {
		case ')':
			b = append(b, ')')
		case '[':
			b = append(b, '[')
			b = strconv.AppendUint(b, uint64(r.n), 10)
			b = append(b, ']')
		case 'f':
			b = p.appendProtoParams(b, r.id, depth)
		case 'F':
			b = p.appendStateParams(b, fn, depth)
		}
	}
	return b
}

func skipTypeTags(t *btf.Types, id btf.TypeID) btf.TypeID {
	for n := 0; n < maxDeclChain && id != 0 && t.Kind(id) == btf.KindTypeTag; n++ {
		id = t.Ref(id)
	}
	return id
}

func appendQual(b []byte, q byte) []byte {
	switch q {
	case 'c':
		return append(b, "const"...)
	case 'v':
		return append(b, "volatile"...)
	}
	return append(b, "restrict"...)
}

// appendBase appends a type that ends a declarator: void, a named type,
// or a struct, union or enum by its tag.
func (p *protoPrinter) appendBase(b []byte, id btf.TypeID) []byte {
	t := p.types
	if id == 0 {
		return append(b, "void"...)
	}
	v := t.Type(id)
	name := t.Strings.String(v.NameOff())
	switch v.Kind() {
	case btf.KindStruct:
		b = append(b, "struct "...)
	case btf.KindUnion:
		b = append(b, "union "...)
	case btf.KindEnum, btf.KindEnum64:
		b = append(b, "enum "...)
	case btf.KindFwd:
		if v.KindFlag() {
			b = append(b, "union "...)
		} else {
			b = append(b, "struct "...)
		}
	case btf.KindInt, btf.KindFloat, btf.KindTypedef:
	default:
		return append(b, v.Kind().String()...)
	}
	if name == "" {
		return append(b, "(anon)"...)
	}
	return append(b, name...)
}

// appendStateParams appends a saved state's parameter list.
func (p *protoPrinter) appendStateParams(b []byte, s *State, depth int) []byte {
	b = append(b, '(')
	if len(s.params) == 0 {
		b = append(b, "void"...)
	}
	for i := range s.params {
		if i > 0 {
			b = append(b, ", "...)
		}
		sp := &s.params[i]
		if sp.typ == 0 && sp.nameOff == 0 && i == len(s.params)-1 {
			b = append(b, "..."...)
			continue
		}
		b = p.appendDecl(b, sp.typ, p.types.Strings.String(sp.nameOff), nil, depth+1)
	}
	return append(b, ')')
}

// appendProtoParams appends a FUNC_PROTO's parameter list.
func (p *protoPrinter) appendProtoParams(b []byte, id btf.TypeID, depth int) []byte {
	if depth >= maxDeclDepth {
		return append(b, "(...)"...)
	}
	v := p.types.Type(id)
	n := v.Vlen()
	b = append(b, '(')
	if n == 0 {
		b = append(b, "void"...)
	}
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		prm := v.Param(i)
		if prm.Type == 0 && i == n-1 {
			b = append(b, "..."...)
			continue
		}
		b = p.appendDecl(b, prm.Type, p.types.Strings.String(prm.Name), nil, depth+1)
	}
	return append(b, ')')
}
