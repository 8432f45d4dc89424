package facts

import (
	"fmt"
	"reflect"
	"strings"
)

// Kind is how a fact is represented in the policies' input and in every
// export of it (`btfgate facts`, `--opa-input`, `--report`).
type Kind uint8

// The kinds a fact can have. Every field of a subject type is always
// present; none is ever left out:
//
//	Bool      true or false
//	Int       a number (Go signed integers)
//	Uint      a number (Go unsigned integers; kernel addresses exceed 2^63)
//	String    a string, "" when empty
//	List      an array of objects (a slice of structs), [] when empty
//	Strings   an array of strings (a slice of strings), [] when empty
//	Ints      an array of numbers (a slice of integers), [] when empty
//	Object    an object (a struct)
//	Nullable  an object, or null (a pointer to a struct)
const (
	Bool Kind = 1 + iota
	Int
	Uint
	String
	List
	Strings
	Ints
	Object
	Nullable
)

// Field is one fact of a subject type (Function, Instance, Symbol, Param,
// or any struct built by the same rules) under its JSON name.
type Field struct {
	Name  string       // the JSON name policies use
	Index int          // the Go struct field's index
	Kind  Kind         // its representation
	Elem  reflect.Type // the struct type of a List, Object or Nullable field
}

// Fields lists the facts of the struct type t, in declaration order. Each
// exported field must have a JSON name without options and one of the
// kinds above: a subject type is written for policies, and an omitted or
// unnamed field would make the export and the input differ.
func Fields(t reflect.Type) ([]Field, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("facts: %v is not a struct", t)
	}
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, ok := sf.Tag.Lookup("json")
		if !ok || tag == "" || tag == "-" || strings.Contains(tag, ",") {
			return nil, fmt.Errorf("facts: %v.%s: json tag %q: want a plain name (no options, no omitempty)", t, sf.Name, tag)
		}
		f := Field{Name: tag, Index: i}
		switch ft := sf.Type; ft.Kind() {
		case reflect.Bool:
			f.Kind = Bool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.Kind = Int
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.Kind = Uint
		case reflect.String:
			f.Kind = String
		case reflect.Struct:
			f.Kind, f.Elem = Object, ft
		case reflect.Pointer:
			if ft.Elem().Kind() != reflect.Struct {
				return nil, fmt.Errorf("facts: %v.%s: a pointer to %v, want a pointer to a struct", t, sf.Name, ft.Elem())
			}
			f.Kind, f.Elem = Nullable, ft.Elem()
		case reflect.Slice:
			switch ft.Elem().Kind() {
			case reflect.Struct:
				f.Kind, f.Elem = List, ft.Elem()
			case reflect.String:
				f.Kind = Strings
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				f.Kind = Ints
			default:
				return nil, fmt.Errorf("facts: %v.%s: a slice of %v, want structs, strings or signed integers", t, sf.Name, ft.Elem())
			}
		default:
			return nil, fmt.Errorf("facts: %v.%s: a %v cannot be a fact", t, sf.Name, ft)
		}
		out = append(out, f)
	}
	return out, nil
}

// Subjects are the types whose values policies decide on, with the types
// they hold, reachable from them through List, Object and Nullable
// fields: every struct type of the input, each once, in the order met.
func Subjects(roots ...reflect.Type) ([]reflect.Type, error) {
	var out []reflect.Type
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type) error
	visit = func(t reflect.Type) error {
		if seen[t] {
			return nil
		}
		seen[t] = true
		out = append(out, t)
		fs, err := Fields(t)
		if err != nil {
			return err
		}
		for _, f := range fs {
			if f.Elem != nil {
				if err := visit(f.Elem); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := visit(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}
