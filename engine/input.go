package engine

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// The input document is built straight from the facts as AST values, and
// only with the fields that some policy mentions by name: building an
// object costs a hash map, and most rules read a handful of flags. A policy
// that reads a field through a computed key, or walks every key of a
// function, sees only the mentioned ones.

// inputField is one key of an input object and how to get its value.
type inputField[T any] struct {
	key   *ast.Term
	value func(*T, *batchTerms) *ast.Term
}

// inputBuilder makes input documents. Its keys are made once and shared
// by every object it builds; no term is modified once built.
type inputBuilder struct {
	features, functions *ast.Term
	function            []inputField[facts.Function]
	instance            []inputField[facts.Instance]
	symbol              []inputField[facts.Symbol]
	param               []inputField[facts.Param]
}

// newInputBuilder keeps the fields whose names mentioned holds.
func newInputBuilder(mentioned func(string) bool) *inputBuilder {
	b := &inputBuilder{features: ast.StringTerm("features"), functions: ast.StringTerm("functions")}
	b.function = only(mentioned, functionFields(b))
	b.instance = only(mentioned, instanceFields(b))
	b.symbol = only(mentioned, symbolFields())
	b.param = only(mentioned, paramFields())
	return b
}

func only[T any](mentioned func(string) bool, all map[string]func(*T, *batchTerms) *ast.Term) []inputField[T] {
	var out []inputField[T]
	for _, name := range sortedKeys(all) {
		if mentioned(name) {
			out = append(out, inputField[T]{ast.StringTerm(name), all[name]})
		}
	}
	return out
}

// input builds the input document for one batch of functions. terms, if
// not nil, holds each function's object by position in fns: a nil entry is
// built and stored, others are used as they are. bt holds the objects the
// batch shares (newBatchTerms).
func (b *inputBuilder) input(features *ast.Term, fns []facts.Function, terms []*ast.Term, bt *batchTerms) ast.Value {
	byID := ast.NewObjectWithCapacity(len(fns))
	for i := range fns {
		var t *ast.Term
		if terms != nil {
			t = terms[i]
		}
		if t == nil {
			t = object(bt, kindFunction, b.function, &fns[i])
			if terms != nil {
				terms[i] = t
			}
		}
		byID.Insert(ast.InternedTerm(fns[i].ID), t)
	}
	return ast.NewObject(
		[2]*ast.Term{b.features, features},
		[2]*ast.Term{b.functions, ast.NewTerm(byID)},
	)
}

func newBatchTerms() *batchTerms { return &batchTerms{shared: map[string]*ast.Term{}} }

// batchTerms holds the objects one batch's input shares. Objects whose
// values are all booleans, null or "" are built once per batch: most
// functions' canonical instances look alike to the rules.
type batchTerms struct {
	shared map[string]*ast.Term // by object kind and value codes
}

// Object kinds, the first byte of a shared object's key.
const (
	kindFunction byte = 1 + iota
	kindInstance
	kindSymbol
	kindParam
	kindEmptyList
)

// maxSharedFields bounds the objects that may be shared.
const maxSharedFields = 23

// object builds the object of the fields fs of x, or returns the batch's
// equal object.
func object[T any](bt *batchTerms, kind byte, fs []inputField[T], x *T) *ast.Term {
	var buf [maxSharedFields + 1][2]*ast.Term
	var sig [maxSharedFields + 1]byte
	items := buf[:0]
	sig[0] = kind
	share := len(fs) <= maxSharedFields
	for i, f := range fs {
		v := f.value(x, bt)
		items = append(items, [2]*ast.Term{f.key, v})
		if share {
			sig[i+1] = scalarCode(v)
			share = sig[i+1] != 0
		}
	}
	if !share {
		return ast.ObjectTerm(items...)
	}
	if t, ok := bt.shared[string(sig[:len(fs)+1])]; ok {
		return t
	}
	t := ast.ObjectTerm(items...)
	bt.shared[string(sig[:len(fs)+1])] = t
	return t
}

// scalarCode names the interned scalars a shared object may hold, 0 for
// any other value.
func scalarCode(t *ast.Term) byte {
	switch t {
	case ast.InternedTerm(true):
		return 't'
	case ast.InternedTerm(false):
		return 'f'
	case ast.InternedNullTerm:
		return 'n'
	case ast.InternedTerm(""):
		return 'e'
	}
	return 0
}

func list[T any](bt *batchTerms, kind byte, fs []inputField[T], xs []T) *ast.Term {
	if len(xs) == 0 {
		key := string([]byte{kindEmptyList})
		if t, ok := bt.shared[key]; ok {
			return t
		}
		t := ast.ArrayTerm()
		bt.shared[key] = t
		return t
	}
	arr := make([]*ast.Term, len(xs))
	for i := range xs {
		arr[i] = object(bt, kind, fs, &xs[i])
	}
	return ast.ArrayTerm(arr...)
}

// stringList is a list of strings; the empty list is shared.
func stringList(bt *batchTerms, xs []string) *ast.Term {
	if len(xs) == 0 {
		return list[facts.Param](bt, kindParam, nil, nil)
	}
	arr := make([]*ast.Term, len(xs))
	for i, x := range xs {
		arr[i] = str(x)
	}
	return ast.ArrayTerm(arr...)
}

func boolean(v bool) *ast.Term { return ast.InternedTerm(v) }
func integer(v int) *ast.Term  { return ast.InternedTerm(v) }

func unsigned(v uint64) *ast.Term {
	if v < 1<<31 {
		return ast.InternedTerm(int(v))
	}
	return ast.UIntNumberTerm(v)
}

func str(v string) *ast.Term {
	if v == "" {
		return ast.InternedTerm("")
	}
	return ast.StringTerm(v)
}

// functionFields are facts.Function's fields under their JSON names.
func functionFields(b *inputBuilder) map[string]func(*facts.Function, *batchTerms) *ast.Term {
	return map[string]func(*facts.Function, *batchTerms) *ast.Term{
		"id":             func(f *facts.Function, _ *batchTerms) *ast.Term { return integer(f.ID) },
		"name":           func(f *facts.Function, _ *batchTerms) *ast.Term { return str(f.Name) },
		"ambiguous_addr": func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.AmbiguousAddr) },
		"kfunc":          func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.Kfunc) },
		"kfunc_flags":    func(f *facts.Function, _ *batchTerms) *ast.Term { return unsigned(uint64(f.KfuncFlags)) },
		"btf_id_ref":     func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.BTFIDRef) },
		"instances":      func(f *facts.Function, _ *batchTerms) *ast.Term { return integer(f.Instances) },
		"unexpected_reg": func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.UnexpectedReg) },
		"uncertain_loc":  func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.UncertainLoc) },
		"reordered":      func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.Reordered) },
		"inconsistent":   func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.Inconsistent) },
		"mismatch":       func(f *facts.Function, _ *batchTerms) *ast.Term { return str(f.Mismatch) },
		"section":        func(f *facts.Function, _ *batchTerms) *ast.Term { return str(f.Section) },
		"text_regions":   func(f *facts.Function, bt *batchTerms) *ast.Term { return stringList(bt, f.TextRegions) },
		"noreturn":       func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.Noreturn) },
		"external":       func(f *facts.Function, _ *batchTerms) *ast.Term { return boolean(f.External) },
		"symbols": func(f *facts.Function, bt *batchTerms) *ast.Term {
			return list(bt, kindSymbol, b.symbol, f.Symbols)
		},
		"canonical": func(f *facts.Function, bt *batchTerms) *ast.Term {
			return object(bt, kindInstance, b.instance, &f.Canonical)
		},
		"true_sig": func(f *facts.Function, bt *batchTerms) *ast.Term {
			if f.TrueSig == nil {
				return ast.InternedNullTerm
			}
			return object(bt, kindInstance, b.instance, f.TrueSig)
		},
	}
}

// instanceFields are facts.Instance's fields under their JSON names.
func instanceFields(b *inputBuilder) map[string]func(*facts.Instance, *batchTerms) *ast.Term {
	return map[string]func(*facts.Instance, *batchTerms) *ast.Term{
		"cu":                  func(in *facts.Instance, _ *batchTerms) *ast.Term { return integer(in.CU) },
		"die":                 func(in *facts.Instance, _ *batchTerms) *ast.Term { return unsigned(in.DIE) },
		"addr":                func(in *facts.Instance, _ *batchTerms) *ast.Term { return unsigned(in.Addr) },
		"addr_matches_symbol": func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.AddrMatchesSymbol) },
		"inline":              func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.Inline) },
		"optimized_parms":     func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.OptimizedParms) },
		"unexpected_reg":      func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.UnexpectedReg) },
		"uncertain_loc":       func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.UncertainLoc) },
		"reordered":           func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.Reordered) },
		"signature_changed":   func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.SignatureChanged) },
		"clang":               func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.Clang) },
		"abi_walk":            func(in *facts.Instance, _ *batchTerms) *ast.Term { return str(in.ABIWalk) },
		"optimized_symbol":    func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.OptimizedSymbol) },
		"optimized_skip":      func(in *facts.Instance, _ *batchTerms) *ast.Term { return boolean(in.OptimizedSkip) },
		"true_sym":            func(in *facts.Instance, _ *batchTerms) *ast.Term { return str(in.TrueSym) },
		"prototype":           func(in *facts.Instance, _ *batchTerms) *ast.Term { return str(in.Prototype) },
		"params": func(in *facts.Instance, bt *batchTerms) *ast.Term {
			return list(bt, kindParam, b.param, in.Params)
		},
	}
}

// symbolFields are facts.Symbol's fields under their JSON names.
func symbolFields() map[string]func(*facts.Symbol, *batchTerms) *ast.Term {
	return map[string]func(*facts.Symbol, *batchTerms) *ast.Term{
		"name":    func(s *facts.Symbol, _ *batchTerms) *ast.Term { return str(s.Name) },
		"value":   func(s *facts.Symbol, _ *batchTerms) *ast.Term { return unsigned(s.Value) },
		"size":    func(s *facts.Symbol, _ *batchTerms) *ast.Term { return unsigned(s.Size) },
		"section": func(s *facts.Symbol, _ *batchTerms) *ast.Term { return str(s.Section) },
		"global":  func(s *facts.Symbol, _ *batchTerms) *ast.Term { return boolean(s.Global) },
	}
}

// paramFields are facts.Param's fields under their JSON names.
func paramFields() map[string]func(*facts.Param, *batchTerms) *ast.Term {
	return map[string]func(*facts.Param, *batchTerms) *ast.Term{
		"name":             func(p *facts.Param, _ *batchTerms) *ast.Term { return str(p.Name) },
		"type":             func(p *facts.Param, _ *batchTerms) *ast.Term { return str(p.Type) },
		"idx":              func(p *facts.Param, _ *batchTerms) *ast.Term { return integer(p.Idx) },
		"origin_idx":       func(p *facts.Param, _ *batchTerms) *ast.Term { return integer(p.OriginIdx) },
		"has_loc":          func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.HasLoc) },
		"has_const_value":  func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.HasConstValue) },
		"loc_reg":          func(p *facts.Param, _ *batchTerms) *ast.Term { return integer(p.LocReg) },
		"loc_stack":        func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.LocStack) },
		"loc_const":        func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.LocConst) },
		"type_size":        func(p *facts.Param, _ *batchTerms) *ast.Term { return integer(p.TypeSize) },
		"in_memory":        func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.InMemory) },
		"is_struct":        func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.IsStruct) },
		"optimized":        func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.Optimized) },
		"unexpected_reg":   func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.UnexpectedReg) },
		"abi_slot":         func(p *facts.Param, _ *batchTerms) *ast.Term { return integer(int(p.ABISlot)) },
		"abi_slots":        func(p *facts.Param, _ *batchTerms) *ast.Term { return integer(int(p.ABISlots)) },
		"expected_reg":     func(p *facts.Param, _ *batchTerms) *ast.Term { return integer(int(p.ExpectedReg)) },
		"true_sig_member":  func(p *facts.Param, _ *batchTerms) *ast.Term { return str(p.TrueSigMember) },
		"passed_as_member": func(p *facts.Param, _ *batchTerms) *ast.Term { return boolean(p.PassedAsMember) },
	}
}
