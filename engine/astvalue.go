package engine

import "github.com/open-policy-agent/opa/v1/ast"

// field is obj[key], or nil.
func field(obj ast.Object, key string) ast.Value {
	if obj == nil {
		return nil
	}
	if t := obj.Get(ast.InternedTerm(key)); t != nil {
		return t.Value
	}
	return nil
}

// text is the Go string of an AST string, or "".
func text(v ast.Value) string {
	s, _ := v.(ast.String)
	return string(s)
}

// intValue reads an integral number that fits an int.
func intValue(v ast.Value) (int, bool) {
	n, ok := v.(ast.Number)
	if !ok {
		return 0, false
	}
	return n.Int()
}
