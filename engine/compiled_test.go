package engine

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// nodeTrace lists, in walk order, every node of m with its location and
// the fields String() does not show.
func nodeTrace(m *ast.Module) []string {
	out := bodyTrace(m)
	for _, c := range m.Comments {
		out = append(out, fmt.Sprintf("comment %q %v", c.Text, c.Location))
	}
	return append(out, "version "+m.RegoVersionSpan().String())
}

// bodyTrace lists, in walk order, every node of x (a module, a body) with
// its location and the fields String() does not show.
func bodyTrace(x any) []string {
	var out []string
	ast.WalkNodes(x, func(n ast.Node) bool {
		s := fmt.Sprintf("%T", n)
		if l := n.Loc(); l != nil {
			s += fmt.Sprintf(" %s:%d:%d@%d %q (nil %v) %v (nil %v)", l.File, l.Row, l.Col, l.Offset, l.Text, l.Text == nil, l.Tabs, l.Tabs == nil)
		}
		switch n := n.(type) {
		case *ast.Expr:
			s += fmt.Sprintf(" index %d negated %v generated %v with %d", n.Index, n.Negated, n.Generated, len(n.With))
		case *ast.Rule:
			s += fmt.Sprintf(" default %v module %v", n.Default, n.Module != nil)
		case *ast.Head:
			s += fmt.Sprintf(" name %q assign %v", n.Name, n.Assign)
		case *ast.Term:
			s += fmt.Sprintf(" %T %v", n.Value, n.Value)
		}
		out = append(out, s)
		return false
	})
	return out
}
