package btf

import (
	"math/rand/v2"
	"testing"
)

// cuSynth cuts compile-unit-like fragments out of deduplicated BTF, to give
// Dedup inputs shaped like pahole's: each unit holds the closure of a few
// random root types, where a named struct, union or enum reached only
// through pointers is often just forward-declared (FWD, or an enum with no
// values), and an array member sometimes gets its own identical copy of the
// array type, as compilers occasionally emit.
type cuSynth struct {
	src *Types
	rng *rand.Rand

	pFwd   float64 // chance that a pointed-to named struct is only declared
	pDup   float64 // chance that an array member gets a duplicate array type
	nRoots int     // roots per unit
	// postOrder emits a type after the types it refers to (as headers
	// declare them), rather than before (a depth-first preorder).
	postOrder bool

	// per unit
	first TypeID // id of the unit's first type
	state map[TypeID]*synthNode
	nodes []*synthNode
}

type synthNode struct {
	src   TypeID
	fwd   bool // a FWD (or enum without values) standing for src
	local TypeID
	full  *synthNode // for a FWD: the full node, if the unit has one
}

func newCUSynth(src *Types, seed uint64) *cuSynth {
	return &cuSynth{src: src, rng: rand.New(rand.NewPCG(seed, 0x5eed)), pFwd: 0.5, pDup: 0.05, nRoots: 12}
}

// unit builds one compile unit as a fragment with its own strings.
func (s *cuSynth) unit() *Types {
	s.state = map[TypeID]*synthNode{}
	s.nodes = s.nodes[:0]
	s.first = s.src.FirstID() // units of split BTF are split on the same base
	first, n := s.src.FirstID(), s.src.Len()
	for range s.nRoots {
		id := first + TypeID(s.rng.IntN(n))
		if k := s.src.Kind(id); k == KindDatasec {
			continue
		}
		s.visit(id, false)
	}
	return s.build()
}

func (s *cuSynth) add(n *synthNode) *synthNode {
	s.nodes = append(s.nodes, n)
	n.local = s.first + TypeID(len(s.nodes)-1)
	return n
}

// place adds n now (preorder) or returns a function adding it once its
// references are visited (postorder).
func (s *cuSynth) place(n *synthNode) (*synthNode, func()) {
	if !s.postOrder {
		return s.add(n), func() {}
	}
	return n, func() { s.add(n) }
}

// visit adds id and what it needs; viaPtr says id is reached through a
// pointer only, so a declaration would do.
func (s *cuSynth) visit(id TypeID, viaPtr bool) {
	if id == 0 || id < s.src.FirstID() {
		return
	}
	v := s.src.Type(id)
	k := v.Kind()
	if st, ok := s.state[id]; ok {
		if st.fwd && !viaPtr && st.full == nil {
			var done func()
			st.full, done = s.place(&synthNode{src: id})
			s.visitRefs(v, false)
			done()
		}
		return
	}
	declarable := (k == KindStruct || k == KindUnion || k == KindEnum || k == KindEnum64) && v.NameOff() != 0
	if viaPtr && declarable && s.rng.Float64() < s.pFwd {
		s.state[id] = s.add(&synthNode{src: id, fwd: true})
		return
	}
	var done func()
	s.state[id], done = s.place(&synthNode{src: id})
	s.visitRefs(v, viaPtr)
	done()
}

func (s *cuSynth) visitRefs(v Type, viaPtr bool) {
	switch v.Kind() {
	case KindPtr:
		s.visit(v.Ref(), true)
	case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag:
		s.visit(v.Ref(), viaPtr)
	case KindFunc, KindVar, KindDeclTag:
		s.visit(v.Ref(), false)
	case KindArray:
		elem, index, _ := v.Array()
		s.visit(elem, false)
		s.visit(index, false)
	case KindStruct, KindUnion:
		for i := range v.Vlen() {
			s.visit(v.Member(i).Type, false)
		}
	case KindFuncProto:
		s.visit(v.Ref(), false)
		for i := range v.Vlen() {
			s.visit(v.Param(i).Type, false)
		}
	}
}

// ref returns the local id standing for source id.
func (s *cuSynth) ref(id TypeID) TypeID {
	if id == 0 || id < s.src.FirstID() {
		return id // void, or a base type: kept (the fragment is split on the same base)
	}
	st := s.state[id]
	if st.full != nil {
		return st.full.local
	}
	return st.local
}

func (s *cuSynth) build() *Types {
	var frag *Types
	if s.src.Base != nil {
		frag = NewSplitTypes(s.src.Base)
	} else {
		frag = NewTypes(NewStrings())
	}
	str := func(off uint32) uint32 { return frag.Strings.Add(s.src.Strings.String(off)) }
	// Duplicate arrays go after the unit's other types.
	var dups []TypeID
	dupLocal := s.first + TypeID(len(s.nodes)-1)
	for _, n := range s.nodes {
		v := s.src.Type(n.src)
		if n.fwd {
			if v.Kind() == KindStruct || v.Kind() == KindUnion {
				frag.AddFwd(str(v.NameOff()), v.Kind() == KindUnion)
			} else {
				frag.AddEnum(str(v.NameOff()), 4, false, nil)
			}
			continue
		}
		switch v.Kind() {
		case KindInt:
			enc, off, bits := v.Int()
			frag.AddInt(str(v.NameOff()), v.Size(), enc, off, bits)
		case KindFloat:
			frag.AddFloat(str(v.NameOff()), v.Size())
		case KindFwd:
			frag.AddFwd(str(v.NameOff()), v.KindFlag())
		case KindPtr, KindTypedef, KindConst, KindVolatile, KindRestrict:
			frag.AddRef(v.Kind(), str(v.NameOff()), s.ref(v.Ref()))
		case KindTypeTag:
			frag.AddTypeTag(str(v.NameOff()), s.ref(v.Ref()), v.KindFlag())
		case KindArray:
			elem, index, nelems := v.Array()
			frag.AddArray(s.ref(elem), s.ref(index), nelems)
		case KindStruct, KindUnion:
			ms := make([]Member, v.Vlen())
			for i := range ms {
				m := v.Member(i)
				m.Name, m.Type = str(m.Name), s.ref(m.Type)
				if s.src.Kind(v.Member(i).Type) == KindArray && s.rng.Float64() < s.pDup {
					dups = append(dups, v.Member(i).Type)
					dupLocal++
					m.Type = dupLocal
				}
				ms[i] = m
			}
			frag.AddStruct(v.Kind() == KindUnion, str(v.NameOff()), v.Size(), ms)
		case KindEnum, KindEnum64:
			vs := make([]EnumValue, v.Vlen())
			for i := range vs {
				vs[i] = v.EnumValue(i)
				vs[i].Name = str(vs[i].Name)
			}
			if v.Kind() == KindEnum {
				frag.AddEnum(str(v.NameOff()), v.Size(), v.KindFlag(), vs)
			} else {
				frag.AddEnum64(str(v.NameOff()), v.Size(), v.KindFlag(), vs)
			}
		case KindFuncProto:
			ps := make([]Param, v.Vlen())
			for i := range ps {
				p := v.Param(i)
				ps[i] = Param{Name: str(p.Name), Type: s.ref(p.Type)}
			}
			frag.AddFuncProto(s.ref(v.Ref()), ps)
		case KindFunc:
			frag.AddFunc(str(v.NameOff()), s.ref(v.Ref()), uint16(v.Linkage()))
		case KindVar:
			frag.AddVar(str(v.NameOff()), s.ref(v.Ref()), v.Linkage())
		case KindDeclTag:
			frag.AddDeclTag(str(v.NameOff()), s.ref(v.Ref()), v.ComponentIdx())
		default:
			panic("synth: unexpected kind " + v.Kind().String())
		}
	}
	for _, a := range dups {
		elem, index, nelems := s.src.Type(a).Array()
		frag.AddArray(s.ref(elem), s.ref(index), nelems)
	}
	return frag
}

// synthInput concatenates units compile units cut from src. The result is
// split BTF on base if base is not nil; src must then be either non-split or
// split on base.
func synthInput(tb testing.TB, src, base *Types, units int, seed uint64) *Types {
	tb.Helper()
	all, err := synthUnits(src, base, units, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return all
}

func synthUnits(src, base *Types, units int, seed uint64) (*Types, error) {
	s := newCUSynth(src, seed)
	all := NewTypes(NewStrings())
	if base != nil {
		all = NewSplitTypes(base)
	}
	for range units {
		if err := all.Append(s.unit(), nil); err != nil {
			return nil, err
		}
	}
	return all, nil
}
