package engine

import (
	"reflect"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// The input document is built straight from the facts as AST values,
// following facts.Fields: the field list, names and representation of each
// subject type come from its Go struct, as for facts.AppendJSON, so the
// input and every export of the facts agree field for field. A builder may
// keep only the fields some policy names (see policyFields): building an
// object costs a hash map, and most rules read a handful of flags.

// inputField is one key of an input object and how to get its value from
// the struct holding it.
type inputField struct {
	key   *ast.Term
	value func(reflect.Value, *batchTerms) *ast.Term
}

// objectType is the fields one struct type's objects carry, and the kind
// byte that tells its shared objects from other types'.
type objectType struct {
	kind   byte
	fields []inputField
}

// inputBuilder makes input documents. Its keys are made once and shared
// by every object it builds; no term is modified once built.
type inputBuilder struct {
	features, functions, variables *ast.Term
	types                          map[reflect.Type]*objectType
	function, variable             *objectType
}

// subjectRoots are the types of the input's subjects: input.functions
// holds facts.Function objects, input.variables facts.Variable ones.
func subjectRoots() []reflect.Type {
	return []reflect.Type{reflect.TypeFor[facts.Function](), reflect.TypeFor[facts.Variable]()}
}

// newInputBuilder keeps, of every subject type reachable from
// subjectRoots, the fields for which keep holds.
func newInputBuilder(keep func(string) bool) (*inputBuilder, error) {
	b := &inputBuilder{features: ast.StringTerm("features"), functions: ast.StringTerm("functions"),
		variables: ast.StringTerm("variables"), types: map[reflect.Type]*objectType{}}
	subjects, err := facts.Subjects(subjectRoots()...)
	if err != nil {
		return nil, err
	}
	for i, t := range subjects {
		b.types[t] = &objectType{kind: kindEmptyList + 1 + byte(i)}
	}
	for _, t := range subjects {
		fs, err := facts.Fields(t)
		if err != nil {
			return nil, err
		}
		ot := b.types[t]
		for _, f := range fs {
			if keep(f.Name) {
				ot.fields = append(ot.fields, inputField{ast.StringTerm(f.Name), b.accessor(f)})
			}
		}
	}
	b.function = b.types[reflect.TypeFor[facts.Function]()]
	b.variable = b.types[reflect.TypeFor[facts.Variable]()]
	return b, nil
}

// accessor returns how f's value becomes a term, by its kind.
func (b *inputBuilder) accessor(f facts.Field) func(reflect.Value, *batchTerms) *ast.Term {
	i := f.Index
	switch f.Kind {
	case facts.Bool:
		return func(v reflect.Value, _ *batchTerms) *ast.Term { return boolean(v.Field(i).Bool()) }
	case facts.Int:
		return func(v reflect.Value, _ *batchTerms) *ast.Term { return signed(v.Field(i).Int()) }
	case facts.Uint:
		return func(v reflect.Value, _ *batchTerms) *ast.Term { return unsigned(v.Field(i).Uint()) }
	case facts.String:
		return func(v reflect.Value, _ *batchTerms) *ast.Term { return str(v.Field(i).String()) }
	case facts.Strings:
		return listField(i, func(_ *batchTerms, e reflect.Value) *ast.Term { return str(e.String()) })
	case facts.Ints:
		return listField(i, func(_ *batchTerms, e reflect.Value) *ast.Term { return signed(e.Int()) })
	case facts.List:
		ot := b.types[f.Elem]
		return listField(i, func(bt *batchTerms, e reflect.Value) *ast.Term { return object(bt, ot, e) })
	case facts.Object:
		ot := b.types[f.Elem]
		return func(v reflect.Value, bt *batchTerms) *ast.Term { return object(bt, ot, v.Field(i)) }
	case facts.Nullable:
		ot := b.types[f.Elem]
		return func(v reflect.Value, bt *batchTerms) *ast.Term {
			fv := v.Field(i)
			if fv.IsNil() {
				return ast.InternedNullTerm
			}
			return object(bt, ot, fv.Elem())
		}
	}
	panic("engine: facts.Fields returned an unknown kind")
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
			t = object(bt, b.function, reflect.ValueOf(&fns[i]).Elem())
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

// variableInput builds the input document for one batch of variables,
// {"features": ..., "variables": {ID: VARIABLE, ...}}.
func (b *inputBuilder) variableInput(features *ast.Term, vars []facts.Variable, bt *batchTerms) ast.Value {
	byID := ast.NewObjectWithCapacity(len(vars))
	for i := range vars {
		byID.Insert(ast.InternedTerm(vars[i].ID), object(bt, b.variable, reflect.ValueOf(&vars[i]).Elem()))
	}
	return ast.NewObject(
		[2]*ast.Term{b.features, features},
		[2]*ast.Term{b.variables, ast.NewTerm(byID)},
	)
}

func newBatchTerms() *batchTerms { return &batchTerms{shared: map[string]*ast.Term{}} }

// batchTerms holds the objects one batch's input shares. Objects whose
// values are all booleans, null or "" are built once per batch: most
// functions' canonical instances look alike to the rules.
type batchTerms struct {
	shared map[string]*ast.Term // by object kind and value codes
}

// kindEmptyList is the first byte of the shared empty list's key; object
// types number theirs from the next one.
const kindEmptyList byte = 1

// maxSharedFields bounds the objects that may be shared.
const maxSharedFields = 23

// object builds the object of ot's fields of the struct x, or returns the
// batch's equal object.
func object(bt *batchTerms, ot *objectType, x reflect.Value) *ast.Term {
	var buf [maxSharedFields + 1][2]*ast.Term
	var sig [maxSharedFields + 1]byte
	fs := ot.fields
	items := buf[:0]
	sig[0] = ot.kind
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

// emptyList is the batch's shared empty array.
func (bt *batchTerms) emptyList() *ast.Term {
	key := string([]byte{kindEmptyList})
	if t, ok := bt.shared[key]; ok {
		return t
	}
	t := ast.ArrayTerm()
	bt.shared[key] = t
	return t
}

func boolean(v bool) *ast.Term { return ast.InternedTerm(v) }
func signed(v int64) *ast.Term { return ast.InternedTerm(int(v)) }

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

// listField is the term of list field i: its elements' terms, or the
// batch's shared empty list.
func listField(i int, elem func(*batchTerms, reflect.Value) *ast.Term) func(reflect.Value, *batchTerms) *ast.Term {
	return func(v reflect.Value, bt *batchTerms) *ast.Term {
		fv := v.Field(i)
		if fv.Len() == 0 {
			return bt.emptyList()
		}
		arr := make([]*ast.Term, fv.Len())
		for j := range arr {
			arr[j] = elem(bt, fv.Index(j))
		}
		return ast.ArrayTerm(arr...)
	}
}
