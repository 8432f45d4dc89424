package brokentest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/loader/dwarf"
)

// hostFuncs are the functions of miniELF's .symtab, so that synthetic
// subprograms are matched and go through the function analysis.
var hostFuncs = []string{"fn_big_by_value", "fn_block_type", "fn_calls_unused_param", "fn_driver",
	"fn_many_kinds", "fn_packed_ninth", "fn_returns_big", "fn_struct_by_value"}

type synthCase struct {
	name     string
	mustFail bool
	// build returns the DIEs of the compile unit (the root is added).
	build func() []*die
	opts  cuOptions
	// raw, if set, edits the assembled sections.
	raw func(info, abbrev []byte) ([]byte, []byte)
}

func intType() *die {
	return d(dwarf.TagBaseType, []dattr{aName("int"), aU(dwarf.AttrByteSize, 4), aU(dwarf.AttrEncoding, 5)})
}

func member(name string, typ any, loc uint64) *die {
	return d(dwarf.TagMember, []dattr{aName(name), aType(typ), aU(dwarf.AttrDataMemberLocation, loc)})
}

// param is a formal parameter in DW_OP_reg5; typ nil leaves out DW_AT_type.
func param(name string, typ any) *die {
	attrs := []dattr{aName(name), aExpr(dwarf.AttrLocation, 0x55)}
	if typ != nil {
		attrs = append(attrs, aType(typ))
	}
	return d(dwarf.TagFormalParameter, attrs)
}

// function builds a subprogram named like a .symtab function.
func function(name string, ret any, params ...*die) *die {
	attrs := []dattr{aName(name), aFlag(dwarf.AttrExternal), {dwarf.AttrLowPc, dwarf.FormAddr, uint64(0x2100)}}
	if ret != nil {
		attrs = append(attrs, aType(ret))
	}
	return d(dwarf.TagSubprogram, attrs, params...)
}

// selfRef makes x's DW_AT_type refer to x.
func selfRef(x *die) *die {
	x.attrs = append(x.attrs, aType(x))
	return x
}

func structOf(name string, size uint64, members ...*die) *die {
	return d(dwarf.TagStructureType, []dattr{aName(name), aD8(dwarf.AttrByteSize, size)}, members...)
}

func arrayOf(elem any, subranges ...*die) *die {
	return d(dwarf.TagArrayType, []dattr{aType(elem)}, subranges...)
}

func subrange(at dwarf.Attr, form dwarf.Form, v uint64) *die {
	return d(dwarf.TagSubrangeType, []dattr{{at, form, v}})
}

// manyParams is a function with n int parameters and then extra.
func manyParams(name string, n int, typ any, extra ...*die) *die {
	var ps []*die
	for i := 0; i < n; i++ {
		ps = append(ps, param("p"+strconv.Itoa(i), typ))
	}
	return function(name, typ, append(ps, extra...)...)
}

func synthCases() []synthCase {
	var cs []synthCase
	add := func(name string, must bool, build func() []*die) {
		cs = append(cs, synthCase{name: name, mustFail: must, build: build})
	}

	// Cyclic references: BTF the kernel refuses ("Loop detected"), so the
	// encode must fail naming the type (btf.Types.Validate).
	add("typedef-self", true, func() []*die {
		return []*die{intType(), selfRef(d(dwarf.TagTypedef, []dattr{aName("loop_t")}))}
	})
	add("const-volatile-cycle", true, func() []*die {
		c := d(dwarf.TagConstType, nil)
		v := d(dwarf.TagVolatileType, []dattr{aType(c)})
		c.attrs = append(c.attrs, aType(v))
		return []*die{c, v}
	})
	add("typedef-chain-cycle-3", true, func() []*die {
		a := d(dwarf.TagTypedef, []dattr{aName("a_t")})
		b := d(dwarf.TagTypedef, []dattr{aName("b_t"), aType(a)})
		c := d(dwarf.TagTypedef, []dattr{aName("c_t"), aType(b)})
		a.attrs = append(a.attrs, aType(c))
		v := d(dwarf.TagVariable, []dattr{aName("base_bool"), aType(a), aFlag(dwarf.AttrExternal),
			aExpr(dwarf.AttrLocation, 0x03, 0x00, 0x50, 0, 0, 0, 0, 0, 0)}) // DW_OP_addr base_bool
		return []*die{a, b, c, v, function("fn_driver", a, param("x", b))}
	})
	add("pointer-self", true, func() []*die { return []*die{selfRef(d(dwarf.TagPointerType, nil))} })
	add("array-of-itself", true, func() []*die {
		a := arrayOf(nil, subrange(dwarf.AttrUpperBound, dwarf.FormData1, 3))
		a.attrs = []dattr{aType(a)}
		return []*die{a}
	})
	add("struct-member-self", true, func() []*die {
		s := structOf("s", 8)
		s.kids = []*die{member("a", s, 0), member("b", s, 0), member("c", s, 4)}
		return []*die{intType(), s}
	})
	// A struct made of itself, passed on the stack: pahole's packed
	// inference walks member alignments (3^32 paths without a guard).
	add("struct-self-stack-param", false, func() []*die {
		it := intType()
		s := structOf("s", 8)
		s.kids = []*die{member("a", s, 0), member("b", s, 0), member("c", s, 4)}
		return []*die{it, s, manyParams("fn_packed_ninth", 8, it, param("big", s))}
	})
	// The same without a cycle: 40 levels, two members each.
	add("struct-dag-stack-param", false, func() []*die {
		it := intType()
		prev := any(it)
		var all []*die
		for i := 0; i < 40; i++ {
			s := structOf(fmt.Sprintf("s%d", i), 8, member("a", prev, 0), member("b", prev, 4))
			all = append(all, s)
			prev = s
		}
		return append(append([]*die{it}, all...), manyParams("fn_packed_ninth", 8, it, param("big", prev)))
	})
	// A function pointer type whose parameters are that pointer type:
	// rendering the parameter's type name for the facts fans out 40 ways
	// per level.
	add("fnptr-params-self", false, func() []*die {
		it := intType()
		ptr := d(dwarf.TagPointerType, []dattr{aU(dwarf.AttrByteSize, 8)})
		sub := d(dwarf.TagSubroutineType, []dattr{aType(it)})
		ptr.attrs = append(ptr.attrs, aType(sub))
		for i := 0; i < 40; i++ {
			sub.kids = append(sub.kids, d(dwarf.TagFormalParameter, []dattr{aType(ptr)}))
		}
		return []*die{it, ptr, sub, function("fn_driver", it, param("cb", ptr))}
	})
	add("abstract-origin-cycle", false, func() []*die {
		it := intType()
		a := function("fn_driver", it, param("x", it))
		b := function("fn_block_type", nil, param("y", it))
		a.attrs = append(a.attrs, dattr{dwarf.AttrAbstractOrigin, dwarf.FormRef4, b})
		b.attrs = append(b.attrs, dattr{dwarf.AttrAbstractOrigin, dwarf.FormRef4, a})
		b.kids[0].attrs = append(b.kids[0].attrs, dattr{dwarf.AttrAbstractOrigin, dwarf.FormRef4, b.kids[0]})
		return []*die{it, a, b}
	})
	add("param-origin-not-a-param", false, func() []*die {
		it := intType()
		f := function("fn_driver", it, d(dwarf.TagFormalParameter, []dattr{{dwarf.AttrAbstractOrigin, dwarf.FormRef4, it},
			aExpr(dwarf.AttrLocation, 0x55)}))
		return []*die{it, f}
	})
	add("variable-spec-self", false, func() []*die {
		it := intType()
		v := d(dwarf.TagVariable, []dattr{aName("base_bool"), aType(it)})
		v.attrs = append(v.attrs, dattr{dwarf.AttrSpecification, dwarf.FormRef4, v})
		return []*die{it, v}
	})

	// DW_AT_type naming a variable, a function or a parameter.
	add("type-ref-to-non-types", false, func() []*die {
		it := intType()
		v := d(dwarf.TagVariable, []dattr{aName("base_bool"), aFlag(dwarf.AttrExternal),
			aExpr(dwarf.AttrLocation, 0x03, 0x00, 0x50, 0, 0, 0, 0, 0, 0)})
		v.attrs = append(v.attrs, aType(v))
		p := param("a", it)
		f := function("fn_driver", nil, p)
		f.attrs = append(f.attrs, aType(p))
		g := function("fn_block_type", f, param("b", f))
		td := d(dwarf.TagTypedef, []dattr{aName("t"), aType(g)})
		return []*die{it, v, f, g, td, structOf("s", 4, member("m", v, 0))}
	})

	// References out of range.
	// Outside the unit, or inside it where no DIE starts: errors naming
	// the referring DIE; at the root DIE (not a type): void, as in pahole.
	for _, r := range []struct {
		name string
		v    func(self *die) any
		must bool
	}{
		{"ones", func(*die) any { return rawRef(0xffffffff) }, true},
		{"past-unit", func(*die) any { return rawRef(0x7fffffff) }, true},
		{"header", func(*die) any { return rawRef(3) }, true},
		{"mid-die", func(self *die) any { return ref{self, 1} }, true},
		{"root", func(*die) any { return rawRef(11) }, false},
	} {
		add("type-ref-"+r.name, r.must, func() []*die {
			it := intType()
			td := d(dwarf.TagTypedef, []dattr{aName("t")})
			td.attrs = append(td.attrs, aType(r.v(it)))
			s := structOf("s", 4, member("m", r.v(td), 0))
			return []*die{it, td, s, function("fn_driver", r.v(s), param("x", r.v(it)))}
		})
	}

	// Absurd sizes and counts.
	add("array-upper-2^32-1", false, func() []*die {
		it := intType()
		return []*die{it, arrayOf(it, subrange(dwarf.AttrUpperBound, dwarf.FormData4, 0xffffffff))}
	})
	add("array-upper-2^64-1", false, func() []*die {
		it := intType()
		return []*die{it, arrayOf(it, subrange(dwarf.AttrUpperBound, dwarf.FormData8, ^uint64(0)))}
	})
	add("array-count-2^32", false, func() []*die {
		it := intType()
		return []*die{it, arrayOf(it, subrange(dwarf.AttrCount, dwarf.FormData8, 1<<32))}
	})
	add("array-dims-overflow", false, func() []*die {
		big := structOf("big", 1<<40)
		a := arrayOf(big, subrange(dwarf.AttrCount, dwarf.FormData4, 1<<16), subrange(dwarf.AttrCount, dwarf.FormData4, 1<<16),
			subrange(dwarf.AttrCount, dwarf.FormData4, 1<<16))
		v := d(dwarf.TagVariable, []dattr{aName("arr_3d"), aType(a), aFlag(dwarf.AttrExternal),
			aExpr(dwarf.AttrLocation, 0x03, 0x00, 0x51, 0, 0, 0, 0, 0, 0)}) // arr_3d
		return []*die{big, a, v}
	})
	add("array-10000-dims", false, func() []*die {
		it := intType()
		a := arrayOf(it)
		for i := 0; i < 10000; i++ {
			a.kids = append(a.kids, subrange(dwarf.AttrCount, dwarf.FormData4, 0xffffffff))
		}
		return []*die{it, a}
	})
	add("struct-size-2^63", false, func() []*die {
		it := intType()
		return []*die{it, structOf("huge", 1<<63, member("m", it, 1<<62))}
	})
	add("bitfield-absurd", false, func() []*die {
		it := intType()
		m1 := d(dwarf.TagMember, []dattr{aName("a"), aType(it), aU(dwarf.AttrDataMemberLocation, 0),
			aD8(dwarf.AttrBitSize, 1<<40), aD8(dwarf.AttrBitOffset, 1<<41), aD8(dwarf.AttrByteSize, 1<<40)})
		m2 := d(dwarf.TagMember, []dattr{aName("b"), aType(it), aD8(dwarf.AttrDataBitOffset, ^uint64(0)), aD8(dwarf.AttrBitSize, 33)})
		m3 := d(dwarf.TagMember, []dattr{aName("c"), aType(it), aU(dwarf.AttrDataMemberLocation, 0),
			aU(dwarf.AttrBitSize, 3), aU(dwarf.AttrBitOffset, 100)})
		m4 := d(dwarf.TagMember, []dattr{aName("d"), aType(it), aExpr(dwarf.AttrDataMemberLocation, 0x23, 0xff, 0xff)}) // truncated uleb
		return []*die{it, structOf("bits", 8, m1, m2, m3, m4)}
	})
	add("enum-size-2^40", false, func() []*die {
		e := d(dwarf.TagEnumerationType, []dattr{aName("e"), aD8(dwarf.AttrByteSize, 1<<40)},
			d(dwarf.TagEnumerator, []dattr{aName("A"), {dwarf.AttrConstValue, dwarf.FormSdata, ^uint64(0)}}))
		return []*die{e}
	})
	add("base-type-sizes", false, func() []*die {
		return []*die{
			d(dwarf.TagBaseType, []dattr{aName("huge"), aD8(dwarf.AttrByteSize, 1<<40), aU(dwarf.AttrEncoding, 5)}),
			d(dwarf.TagBaseType, []dattr{aName("float3"), aU(dwarf.AttrByteSize, 3), aU(dwarf.AttrEncoding, 4)}),
			d(dwarf.TagBaseType, []dattr{aName("float0"), aU(dwarf.AttrByteSize, 0), aU(dwarf.AttrEncoding, 4)}),
			d(dwarf.TagBaseType, []dattr{aName("float2^40"), aD8(dwarf.AttrByteSize, 1<<40), aU(dwarf.AttrEncoding, 4)}),
			d(dwarf.TagBaseType, []dattr{aName("enc255"), aU(dwarf.AttrByteSize, 4), aU(dwarf.AttrEncoding, 255)}),
		}
	})
	// More members, enumerators and parameters than the 16-bit vlen of
	// the kernel's BTF holds (package btf allows 24 bits).
	add("struct-70000-members", false, func() []*die {
		it := intType()
		s := structOf("wide", 4)
		for i := 0; i < 70000; i++ {
			s.kids = append(s.kids, member("m", it, 0))
		}
		return []*die{it, s}
	})
	add("enum-70000-values", false, func() []*die {
		e := d(dwarf.TagEnumerationType, []dattr{aName("wide_e"), aU(dwarf.AttrByteSize, 4)})
		for i := 0; i < 70000; i++ {
			e.kids = append(e.kids, d(dwarf.TagEnumerator, []dattr{aName("V"), aU(dwarf.AttrConstValue, uint64(i))}))
		}
		return []*die{e}
	})
	add("fnproto-70000-params", false, func() []*die {
		it := intType()
		sub := d(dwarf.TagSubroutineType, []dattr{aType(it)})
		for i := 0; i < 70000; i++ {
			sub.kids = append(sub.kids, d(dwarf.TagFormalParameter, []dattr{aType(it)}))
		}
		return []*die{it, sub}
	})
	add("function-70000-params", false, func() []*die {
		return []*die{intType(), manyParams("fn_driver", 70000, nil)}
	})
	add("function-70000-params-typed", false, func() []*die {
		it := intType()
		return []*die{it, manyParams("fn_driver", 70000, it)}
	})

	// Deep nesting.
	add("nested-blocks-20000", false, func() []*die {
		it := intType()
		inner := d(dwarf.TagVariable, []dattr{aName("x"), aType(it)})
		for i := 0; i < 20000; i++ {
			inner = d(dwarf.TagLexicalBlock, nil, inner)
		}
		return []*die{it, function("fn_driver", it, param("a", it), inner)}
	})
	add("nested-structs-20000", false, func() []*die {
		it := intType()
		inner := structOf("leaf", 4, member("v", it, 0))
		for i := 0; i < 20000; i++ {
			inner = structOf("", 4, inner, member("v", it, 0))
		}
		return []*die{it, inner}
	})

	// A long chain of qualifiers: recursion depth in the walk, the
	// conversion and the dedup.
	add("const-chain-200000", false, func() []*die {
		it := intType()
		out := []*die{it}
		prev := it
		for i := 0; i < 200000; i++ {
			c := d(dwarf.TagConstType, []dattr{aType(prev)})
			out = append(out, c)
			prev = c
		}
		return append(out, d(dwarf.TagVariable, []dattr{aName("base_bool"), aType(prev), aFlag(dwarf.AttrExternal),
			aExpr(dwarf.AttrLocation, 0x03, 0x00, 0x50, 0, 0, 0, 0, 0, 0)}))
	})

	// Unsupported tags.
	for _, u := range []struct {
		name string
		tag  dwarf.Tag
		must bool
	}{
		{"atomic", dwarf.TagAtomicType, true},
		{"string-type", dwarf.TagStringType, true},
		{"ptr-to-member", dwarf.TagPtrToMemberType, true},
		{"reference", dwarf.TagReferenceType, true},
		{"user-0x4242", 0x4242, false},
		{"tag-0xffff", 0xffff, false},
	} {
		add("tag-"+u.name, u.must, func() []*die {
			it := intType()
			return []*die{it, d(u.tag, []dattr{aName("odd"), aType(it)}), selfRef(d(u.tag, nil))}
		})
	}
	add("complex-float", true, func() []*die {
		return []*die{d(dwarf.TagBaseType, []dattr{aName("complex"), aU(dwarf.AttrByteSize, 16), aU(dwarf.AttrEncoding, 3)})}
	})

	// Locations.
	add("locations-absurd", false, func() []*die {
		it := intType()
		return []*die{it, function("fn_driver", it,
			d(dwarf.TagFormalParameter, []dattr{aName("a"), aType(it), {dwarf.AttrLocation, dwarf.FormSecOffset, uint64(0xfffffff0)}}),
			d(dwarf.TagFormalParameter, []dattr{aName("b"), aType(it), aExpr(dwarf.AttrLocation, 0xa3, 0xff, 0xff, 0xff, 0x7f)}), // entry_value, length 2^28
			d(dwarf.TagFormalParameter, []dattr{aName("c"), aType(it), aExpr(dwarf.AttrLocation, 0x93)}),                         // piece, no operand
			d(dwarf.TagFormalParameter, []dattr{aName("d"), aType(it), aExpr(dwarf.AttrLocation, 0xa3, 1, 0x55, 0x9f)}),
			d(dwarf.TagFormalParameter, []dattr{aName("e"), aType(it), aExpr(dwarf.AttrLocation, 0x55, 0x93, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x54, 0x93, 8)}),
		),
			d(dwarf.TagVariable, []dattr{aName("base_bool"), aType(it), aFlag(dwarf.AttrExternal),
				aExpr(dwarf.AttrLocation, 0xa1, 0xff, 0xff, 0xff, 0xff, 0x0f)}), // DW_OP_addrx 2^32-1
		}
	})
	cs = append(cs, synthCase{name: "loclistx-absurd-dwarf5", opts: cuOptions{version: 5}, build: func() []*die {
		it := intType()
		return []*die{it, function("fn_driver", it,
			d(dwarf.TagFormalParameter, []dattr{aName("a"), aType(it), {dwarf.AttrLocation, dwarf.FormLoclistx, uint64(1 << 40)}}),
			d(dwarf.TagFormalParameter, []dattr{aName("b"), aType(it), {dwarf.AttrLocation, dwarf.FormSecOffset, uint64(0x7ffffff0)}}),
		)}
	}})
	cs = append(cs, synthCase{name: "clang-nocall-origin-cycle", opts: cuOptions{producer: "clang version 16.0.6"}, build: func() []*die {
		it := intType()
		a := function("fn_driver", it, param("x", it))
		a.attrs = append(a.attrs, dattr{dwarf.AttrCallingConvention, dwarf.FormData1, uint64(5)},
			dattr{dwarf.AttrAbstractOrigin, dwarf.FormRef4, a})
		return []*die{it, a, manyParams("fn_many_kinds", 12, it)}
	}})

	// A unit with no types: BTF that holds none, which the kernel refuses
	// ("No type found") for anything but split BTF.
	add("no-types", true, func() []*die { return nil })

	// Sibling links that point backwards or past the unit.
	add("sibling-backwards", false, func() []*die {
		it := intType()
		e := d(dwarf.TagEnumerationType, []dattr{aName("e"), aU(dwarf.AttrByteSize, 4)},
			d(dwarf.TagEnumerator, []dattr{aName("A"), aU(dwarf.AttrConstValue, 1)}))
		e.attrs = append(e.attrs, dattr{dwarf.AttrSibling, dwarf.FormRef4, it})
		s := structOf("s", 4, member("m", it, 0))
		s.attrs = append(s.attrs, dattr{dwarf.AttrSibling, dwarf.FormRef4, rawRef(0x7ffffff0)})
		return []*die{it, e, s}
	})

	// An abbreviation with thousands of attributes, used by many DIEs:
	// rejected, decoding would take |abbrev| x |info| steps.
	add("abbrev-4000-attrs", true, func() []*die {
		var attrs []dattr
		for i := 0; i < 4000; i++ {
			attrs = append(attrs, aFlag(dwarf.Attr(0x2000+i)))
		}
		out := []*die{intType()}
		for i := 0; i < 2000; i++ {
			out = append(out, &die{tag: 0x4100, attrs: attrs, sig: "many"})
		}
		return out
	})

	// Broken unit headers after a good unit, and a broken abbrev table.
	badUnit := func(name string, hdr []byte) {
		cs = append(cs, synthCase{name: name, mustFail: true, build: func() []*die { return []*die{intType()} },
			raw: func(info, abbrev []byte) ([]byte, []byte) { return append(info, hdr...), abbrev }})
	}
	badUnit("unit-version-6", []byte{7, 0, 0, 0, 6, 0, 0, 0, 0, 0, 8})
	badUnit("unit-addr-size-3", []byte{7, 0, 0, 0, 4, 0, 0, 0, 0, 0, 3})
	badUnit("unit-length-reserved", []byte{0xf5, 0xff, 0xff, 0xff, 4, 0})
	badUnit("unit-length-64-huge", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x10, 5, 0})
	badUnit("unit-length-past-end", []byte{0xff, 0xff, 0, 0, 4, 0, 0, 0, 0, 0, 8})
	badUnit("unit-abbrev-offset-past-end", []byte{7, 0, 0, 0, 4, 0, 0xff, 0xff, 0xff, 0x7f, 8})
	badUnit("unit-type-unknown", []byte{8, 0, 0, 0, 5, 0, 0x7f, 8, 0, 0, 0, 0})
	badUnit("unit-no-root", []byte{7, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8})
	badUnit("unit-root-code-undefined", []byte{8, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 0x7f})
	cs = append(cs, synthCase{name: "abbrev-unknown-form", mustFail: true, build: func() []*die { return []*die{intType()} },
		raw: func(info, abbrev []byte) ([]byte, []byte) {
			// The root's first attribute (DW_AT_producer) gets form 0x7f.
			return info, append([]byte{1, 0x11, 1, 0x25, 0x7f}, abbrev[5:]...)
		}})
	cs = append(cs, synthCase{name: "abbrev-unterminated", mustFail: true, build: func() []*die { return []*die{intType()} },
		raw: func(info, abbrev []byte) ([]byte, []byte) { return info, abbrev[:len(abbrev)-3] }})
	cs = append(cs, synthCase{name: "abbrev-indirect-loop", mustFail: true, build: func() []*die { return []*die{intType()} },
		raw: func(info, abbrev []byte) ([]byte, []byte) {
			// DW_FORM_indirect for the producer, whose value names
			// DW_FORM_indirect again, many times over.
			ab := append([]byte{1, 0x11, 1, 0x25, 0x16}, abbrev[5:]...)
			in := append([]byte(nil), info[:11]...)
			in = append(in, 1)
			for i := 0; i < 100000; i++ {
				in = append(in, 0x16)
			}
			in = append(in, info[12:]...)
			le.PutUint32(in, uint32(len(in)-4))
			return in, ab
		}})
	cs = append(cs, hugeSizeCases()...)
	return cs
}

// synthImages assembles the synthetic cases into small ELF files (see
// miniELF). The honest work a case is measured against is a fixture of
// the same kind, or for a case larger than honestFloor an honest input of
// its size (honestImage), written into tb's temporary directory.
func synthImages(tb testing.TB) []brokenCase {
	var out []brokenCase
	dir := ""
	for _, c := range synthCases() {
		info, abbrev := assemble(c.opts, c.build()...)
		if c.raw != nil {
			info, abbrev = c.raw(info, abbrev)
		}
		data := miniELF(info, abbrev)
		source := fixturePath("types.gcc-dwarf5.so")
		if len(data) > honestFloor {
			if dir == "" {
				dir = tb.TempDir()
			}
			source = filepath.Join(dir, fmt.Sprintf("honest-%d.so", len(data)))
			if err := os.WriteFile(source, honestImage(len(data)), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		out = append(out, brokenCase{name: "synth-" + c.name, data: data, mustFail: c.mustFail, source: source})
	}
	return out
}

// honestFloor is the size past which a synthetic case is measured against
// an honest input of its own size rather than a fixture.
const honestFloor = 64 << 10

// honestImage is a miniELF of about size bytes whose DWARF is what a
// compiler writes for ordinary code: named structs of a few members, each
// pointing to the one before, pointer and typedef types, and the host's
// functions taking them.
func honestImage(size int) []byte {
	build := func(n int) []byte {
		it := intType()
		dies := []*die{it}
		prev := it
		for i := 0; i < n; i++ {
			ms := []*die{member("a", it, 0), member("b", it, 4)}
			ptr := d(dwarf.TagPointerType, []dattr{aU(dwarf.AttrByteSize, 8), aType(prev)})
			dies = append(dies, ptr)
			ms = append(ms, member("next", ptr, 8))
			s := structOf(fmt.Sprintf("honest_%d", i), 16, ms...)
			dies = append(dies, s, d(dwarf.TagTypedef, []dattr{aName(fmt.Sprintf("honest_%d_t", i)), aType(s)}))
			prev = s
		}
		for _, f := range hostFuncs {
			dies = append(dies, function(f, it, param("a", it), param("b", prev)))
		}
		info, abbrev := assemble(cuOptions{}, dies...)
		return miniELF(info, abbrev)
	}
	empty, probe := len(build(0)), len(build(1000))
	n := (size - empty) * 1000 / (probe - empty)
	return build(max(n, 1))
}

// TestMiniELFEncodes checks that the synthetic host works: an intact
// unit with a function, a variable and types encodes, with the function.
func TestMiniELFEncodes(t *testing.T) {
	it := intType()
	info, abbrev := assemble(cuOptions{}, it,
		d(dwarf.TagVariable, []dattr{aName("base_bool"), aType(it), aFlag(dwarf.AttrExternal),
			aExpr(dwarf.AttrLocation, 0x03, 0x00, 0x50, 0, 0, 0, 0, 0, 0)}),
		function("fn_driver", it, param("a", it)))
	path := filepath.Join(t.TempDir(), "mini.so")
	if err := os.WriteFile(path, miniELF(info, abbrev), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := encode.Encode(path, encode.Options{Features: features.Default(), Jobs: 1, Policy: policy(t)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range res.Functions {
		if res.Decisions[i].Include {
			names = append(names, res.Functions[i].Name)
		}
	}
	if len(names) != 1 || names[0] != "fn_driver" {
		t.Errorf("functions encoded: %v, want [fn_driver]", names)
	}
	if res.Types.Len() < 3 {
		t.Errorf("%d types, want int, FUNC_PROTO, FUNC and more", res.Types.Len())
	}
}

// hugeSizeCases are DWARF sizes, counts and offsets past BTF's 32 bits:
// each must be an error naming the DIE, never written truncated.
func hugeSizeCases() []synthCase {
	return []synthCase{
		{name: "struct-size-2^40", mustFail: true, build: func() []*die {
			it := intType()
			return []*die{it, structOf("huge", 1<<40+4, member("a", it, 0))}
		}},
		{name: "array-2^32+5-elements", mustFail: true, build: func() []*die {
			it := intType()
			a := arrayOf(it, subrange(dwarf.AttrCount, dwarf.FormData8, 1<<32+5))
			return []*die{it, a, d(dwarf.TagVariable, []dattr{aName("big"), aType(a)})}
		}},
		{name: "member-at-2^29-bytes", mustFail: true, build: func() []*die {
			it := intType()
			return []*die{it, structOf("far", 1<<29+8, member("a", it, 0), member("b", it, 1<<29))}
		}},
	}
}

// TestHonestImage checks the honest input synthetic cases are measured
// against: within a tenth of the size asked for, and it encodes.
func TestHonestImage(t *testing.T) {
	for _, size := range []int{honestFloor, 4 << 20} {
		data := honestImage(size)
		if diff := len(data) - size; diff > size/10 || -diff > size/10 {
			t.Errorf("honestImage(%d) is %d bytes", size, len(data))
		}
		path := filepath.Join(t.TempDir(), "honest.so")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := encode.Encode(path, encode.Options{Features: features.Default(), Jobs: 1, Policy: policy(t)})
		if err != nil {
			t.Fatalf("honestImage(%d): %v", size, err)
		}
		if res.Types.Len() < size/100 {
			t.Errorf("honestImage(%d): %d types", size, res.Types.Len())
		}
	}
}
