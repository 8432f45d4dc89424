package btf

import (
	"fmt"
	"strings"
)

// formatType prints type id in a compact form of bpftool's raw dump, for
// tests to compare whole type sections at a glance.
func formatType(t *Types, id TypeID) string {
	v := t.Type(id)
	name := func(off uint32) string { return "'" + t.Strings.String(off) + "'" }
	var b strings.Builder
	fmt.Fprintf(&b, "%v %s", v.Kind(), name(v.NameOff()))
	switch v.Kind() {
	case KindInt:
		enc, off, bits := v.Int()
		fmt.Fprintf(&b, " size=%d enc=%d off=%d bits=%d", v.Size(), enc, off, bits)
	case KindFloat:
		fmt.Fprintf(&b, " size=%d", v.Size())
	case KindPtr, KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindFunc, KindVar:
		fmt.Fprintf(&b, " ->%d", v.Ref())
		if v.KindFlag() {
			b.WriteString(" kflag")
		}
	case KindFwd:
		if v.KindFlag() {
			b.WriteString(" union")
		}
	case KindArray:
		elem, index, n := v.Array()
		fmt.Fprintf(&b, " %d[%d] idx=%d", elem, n, index)
	case KindStruct, KindUnion:
		fmt.Fprintf(&b, " size=%d {", v.Size())
		for i := range v.Vlen() {
			m := v.Member(i)
			fmt.Fprintf(&b, " %s:%d@%d", t.Strings.String(m.Name), m.Type, m.BitOffset)
			if m.BitfieldSize != 0 {
				fmt.Fprintf(&b, ":%d", m.BitfieldSize)
			}
		}
		b.WriteString(" }")
	case KindEnum, KindEnum64:
		fmt.Fprintf(&b, " size=%d {", v.Size())
		for i := range v.Vlen() {
			e := v.EnumValue(i)
			fmt.Fprintf(&b, " %s=%d", t.Strings.String(e.Name), e.Value)
		}
		b.WriteString(" }")
	case KindFuncProto:
		fmt.Fprintf(&b, " ret=%d (", v.Ref())
		for i := range v.Vlen() {
			p := v.Param(i)
			fmt.Fprintf(&b, " %s:%d", t.Strings.String(p.Name), p.Type)
		}
		b.WriteString(" )")
	case KindDatasec:
		fmt.Fprintf(&b, " size=%d {", v.Size())
		for i := range v.Vlen() {
			s := v.Secinfo(i)
			fmt.Fprintf(&b, " %d@%d+%d", s.Type, s.Offset, s.Size)
		}
		b.WriteString(" }")
	case KindDeclTag:
		fmt.Fprintf(&b, " ->%d comp=%d", v.Ref(), v.ComponentIdx())
	}
	return b.String()
}

// formatTypes prints all own types of t, one per line, prefixed by id.
func formatTypes(t *Types) string {
	var b strings.Builder
	for id := t.FirstID(); id < t.NextID(); id++ {
		fmt.Fprintf(&b, "[%d] %s\n", id, formatType(t, id))
	}
	return b.String()
}
