package facts

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

// AppendJSON appends the JSON object of the subject value v (a struct or a
// pointer to one) as policies see it: every field of Fields under its
// name, in declaration order, represented by its Kind. The engine's input
// builder follows the same rules; a test holds them equal on the corpus.
func AppendJSON(b []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return append(b, "null"...), nil
		}
		rv = rv.Elem()
	}
	return appendObject(b, rv)
}

func appendObject(b []byte, v reflect.Value) ([]byte, error) {
	fs, err := Fields(v.Type())
	if err != nil {
		return b, err
	}
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, f.Name)
		b = append(b, ':')
		fv := v.Field(f.Index)
		switch f.Kind {
		case Bool:
			b = strconv.AppendBool(b, fv.Bool())
		case Int:
			b = strconv.AppendInt(b, fv.Int(), 10)
		case Uint:
			b = strconv.AppendUint(b, fv.Uint(), 10)
		case String:
			b = appendString(b, fv.String())
		case Strings:
			b = append(b, '[')
			for j := 0; j < fv.Len(); j++ {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendString(b, fv.Index(j).String())
			}
			b = append(b, ']')
		case Ints:
			b = append(b, '[')
			for j := 0; j < fv.Len(); j++ {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, fv.Index(j).Int(), 10)
			}
			b = append(b, ']')
		case List:
			b = append(b, '[')
			for j := 0; j < fv.Len(); j++ {
				if j > 0 {
					b = append(b, ',')
				}
				if b, err = appendObject(b, fv.Index(j)); err != nil {
					return b, err
				}
			}
			b = append(b, ']')
		case Object:
			if b, err = appendObject(b, fv); err != nil {
				return b, err
			}
		case Nullable:
			if fv.IsNil() {
				b = append(b, "null"...)
			} else if b, err = appendObject(b, fv.Elem()); err != nil {
				return b, err
			}
		default:
			return b, fmt.Errorf("facts: %v.%s: kind %d", v.Type(), f.Name, f.Kind)
		}
	}
	return append(b, '}'), nil
}

// appendString writes s as encoding/json does.
func appendString(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil {
		return strconv.AppendQuote(b, s)
	}
	return append(b, q...)
}

// MarshalJSON writes f as policies see it (AppendJSON).
func (f Function) MarshalJSON() ([]byte, error) { return AppendJSON(nil, &f) }

// MarshalJSON writes in as policies see it (AppendJSON).
func (in Instance) MarshalJSON() ([]byte, error) { return AppendJSON(nil, &in) }

// MarshalJSON writes s as policies see it (AppendJSON).
func (s Symbol) MarshalJSON() ([]byte, error) { return AppendJSON(nil, &s) }

// MarshalJSON writes p as policies see it (AppendJSON).
func (p Param) MarshalJSON() ([]byte, error) { return AppendJSON(nil, &p) }

// MarshalJSON writes v as policies see it (AppendJSON).
func (v Variable) MarshalJSON() ([]byte, error) { return AppendJSON(nil, &v) }
