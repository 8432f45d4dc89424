package engine

import (
	"fmt"
	"reflect"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// Fact references. The engine follows the values a policy takes from
// input.functions and input.variables: through refs (input.functions[id].canonical.params[_]),
// variables bound to them (:=, =, some ... in, every ... in) and the
// arguments of the module's own functions at their call sites. A key that
// names no field of the subject type there is an error naming the file
// and line: such a ref is always undefined, so the rule silently decides
// nothing. A key that is not a constant (f[k]), or a subject object handed
// whole to a builtin that reads its keys (object.keys, walk, json.marshal,
// some v in f, ...) or kept whole in a rule's value, is a computed key:
// the engine then builds every field of every object. A ref through a
// value the engine cannot follow (an argument no call site types) is not
// checked.

// refType is what a term denotes, as far as the check can follow it.
type refType struct {
	kind refKind
	t    reflect.Type // the struct of refObject and refList
}

type refKind uint8

const (
	refUnknown  refKind = iota
	refInput            // input
	refSubjects         // input.functions or input.variables: objects of type t by id
	refObject           // a subject object of type t
	refList             // a list of objects of type t
)

// factRefs is what checkFactRefs found.
type factRefs struct {
	problems PolicyErrors
	computed bool // some policy reads a subject object's keys it does not name
}

// checkFactRefs checks every ref into the input of the modules.
func checkFactRefs(modules []*ast.Module) (*factRefs, error) {
	subjects, err := facts.Subjects(subjectRoots()...)
	if err != nil {
		return nil, err
	}
	c := &refChecker{fields: map[reflect.Type]map[string]facts.Field{}, args: map[string][]refType{}, out: &factRefs{}}
	for _, t := range subjects {
		fs, err := facts.Fields(t)
		if err != nil {
			return nil, err
		}
		m := map[string]facts.Field{}
		for _, f := range fs {
			m[f.Name] = f
		}
		c.fields[t] = m
	}
	// Call sites type the arguments of the modules' functions; a function
	// passing its argument on types its callee's in the next round.
	for range 3 {
		c.next = map[string][]refType{}
		for _, m := range modules {
			for _, r := range m.Rules {
				c.rule(m.Package, r, false)
			}
		}
		c.args = c.next
	}
	c.next = nil
	seen := map[string]bool{}
	for _, m := range modules {
		for _, r := range m.Rules {
			c.rule(m.Package, r, true)
		}
	}
	var problems PolicyErrors
	for _, p := range c.out.problems {
		if k := p.Error(); !seen[k] {
			seen[k] = true
			problems = append(problems, p)
		}
	}
	c.out.problems = problems
	return c.out, nil
}

type refChecker struct {
	fields map[reflect.Type]map[string]facts.Field
	// args holds the types of each module function's arguments, by the
	// function's name, as its call sites give them.
	args map[string][]refType
	next map[string][]refType // args as this round's call sites give them
	out  *factRefs
}

// rule types the variables of r and, if report, records the problems and
// computed keys of its refs.
func (c *refChecker) rule(pkg *ast.Package, r *ast.Rule, report bool) {
	env := map[ast.Var]refType{}
	if len(r.Head.Args) > 0 {
		if ts, ok := c.args[funcName(pkg, r.Head.Ref())]; ok {
			for i, a := range r.Head.Args {
				if v, ok := a.Value.(ast.Var); ok && i < len(ts) {
					env[v] = ts[i]
				}
			}
		}
	}
	var exprs []*ast.Expr
	ast.WalkExprs(r, func(e *ast.Expr) bool {
		exprs = append(exprs, e)
		return false
	})
	// Bindings may follow their uses: type until nothing changes.
	for range 4 {
		changed := false
		for _, e := range exprs {
			changed = c.bind(e, env) || changed
		}
		if !changed {
			break
		}
	}
	// Call sites of the module's functions.
	for _, e := range exprs {
		if !e.IsCall() {
			continue
		}
		name := funcName(pkg, e.Operator())
		if _, builtin := ast.BuiltinMap[e.Operator().String()]; builtin {
			continue
		}
		args := e.Operands()
		ts := make([]refType, len(args))
		for i, a := range args {
			ts[i] = c.typeOf(a, env, false)
		}
		c.mergeArgs(name, ts)
	}
	ast.WalkTerms(r, func(t *ast.Term) bool {
		if call, ok := t.Value.(ast.Call); ok && len(call) > 0 {
			name := funcName(pkg, call[0].Value.(ast.Ref))
			if _, builtin := ast.BuiltinMap[call[0].String()]; !builtin {
				ts := make([]refType, len(call)-1)
				for i, a := range call[1:] {
					ts[i] = c.typeOf(a, env, false)
				}
				c.mergeArgs(name, ts)
			}
		}
		return false
	})
	if !report {
		return
	}
	ast.WalkTerms(r, func(t *ast.Term) bool {
		if _, ok := t.Value.(ast.Ref); ok {
			c.typeOf(t, env, true)
			return true // its elements are checked as part of it
		}
		return false
	})
	for _, e := range exprs {
		c.wholeUses(e, env)
	}
	if r.Head.Value != nil && c.isObject(c.typeOf(r.Head.Value, env, false)) {
		c.out.computed = true
	}
	ast.WalkClosures(r, func(x any) bool {
		var head []*ast.Term
		switch x := x.(type) {
		case *ast.ArrayComprehension:
			head = []*ast.Term{x.Term}
		case *ast.SetComprehension:
			head = []*ast.Term{x.Term}
		case *ast.ObjectComprehension:
			head = []*ast.Term{x.Key, x.Value}
		}
		for _, h := range head {
			if c.isObject(c.typeOf(h, env, false)) {
				c.out.computed = true
			}
		}
		return false
	})
}

func (c *refChecker) mergeArgs(name string, ts []refType) {
	if c.next == nil {
		return
	}
	old, ok := c.next[name]
	if !ok {
		c.next[name] = ts
		return
	}
	for i := range old {
		if i >= len(ts) || old[i] != ts[i] {
			old[i] = refType{} // call sites disagree: not followed
		}
	}
}

// funcName is a function's full name: a call in the same package names
// it alone, others by its data path.
func funcName(pkg *ast.Package, r ast.Ref) string {
	if len(r) == 1 {
		return pkg.Path.String() + "." + r[0].String()
	}
	return r.String()
}

// bind types the variables e binds; it reports whether it typed a new one.
func (c *refChecker) bind(e *ast.Expr, env map[ast.Var]refType) bool {
	set := func(t *ast.Term, rt refType) bool {
		v, ok := t.Value.(ast.Var)
		if !ok || rt.kind == refUnknown || v.IsWildcard() {
			return false
		}
		if old, ok := env[v]; ok && old == rt {
			return false
		}
		env[v] = rt
		return true
	}
	changed := false
	switch x := e.Terms.(type) {
	case *ast.SomeDecl:
		for _, s := range x.Symbols {
			if call, ok := s.Value.(ast.Call); ok {
				changed = c.bindMember(call[1:], env, set) || changed
			}
		}
	case *ast.Every:
		elem := c.elemOf(c.typeOf(x.Domain, env, false))
		if x.Value != nil {
			changed = set(x.Value, elem) || changed
		}
	case []*ast.Term:
		if e.IsCall() && len(x) == 3 && (x[0].Value.Compare(ast.Assign.Ref()) == 0 || x[0].Value.Compare(ast.Equality.Ref()) == 0) {
			changed = set(x[1], c.typeOf(x[2], env, false)) || changed
			changed = set(x[2], c.typeOf(x[1], env, false)) || changed
		}
		if e.IsCall() && (x[0].Value.Compare(ast.Member.Ref()) == 0 || x[0].Value.Compare(ast.MemberWithKey.Ref()) == 0) {
			changed = c.bindMember(x[1:], env, set) || changed
		}
	}
	return changed
}

// bindMember types x of `x in coll` or `k, x in coll`.
func (c *refChecker) bindMember(args []*ast.Term, env map[ast.Var]refType, set func(*ast.Term, refType) bool) bool {
	if len(args) < 2 {
		return false
	}
	coll := args[len(args)-1]
	return set(args[len(args)-2], c.elemOf(c.typeOf(coll, env, false)))
}

// elemOf is the type of a member of a collection of type t.
func (c *refChecker) elemOf(t refType) refType {
	switch t.kind {
	case refSubjects, refList:
		return refType{refObject, t.t}
	case refObject, refInput:
		c.out.computed = true // iterating an object's values
	}
	return refType{}
}

func (c *refChecker) isObject(t refType) bool {
	return t.kind == refObject || t.kind == refInput || t.kind == refSubjects
}

// wholeUses marks computed keys where e hands a subject object to a
// builtin that reads keys it does not name, and checks object.get's key.
func (c *refChecker) wholeUses(e *ast.Expr, env map[ast.Var]refType) {
	var calls []ast.Call
	if terms, ok := e.Terms.([]*ast.Term); ok && e.IsCall() {
		calls = append(calls, ast.Call(terms))
	}
	ast.WalkTerms(e, func(t *ast.Term) bool {
		if call, ok := t.Value.(ast.Call); ok {
			calls = append(calls, call)
		}
		return false
	})
	for _, call := range calls {
		op := call[0].String()
		if _, builtin := ast.BuiltinMap[op]; !builtin {
			continue // the module's own function: its body is checked
		}
		switch op {
		case ast.Assign.Name, ast.Equality.Name, ast.Equal.Name, ast.NotEqual.Name,
			ast.Member.Name, ast.MemberWithKey.Name, "is_object", "is_null", "type_name":
			continue
		}
		for i, a := range call[1:] {
			t := c.typeOf(a, env, false)
			if !c.isObject(t) {
				continue
			}
			if op == "object.get" && i == 0 && len(call) > 2 && t.kind == refObject {
				if k, ok := call[2].Value.(ast.String); ok {
					c.field(t, string(k), call[2])
					continue
				}
			}
			c.out.computed = true
		}
	}
}

// field returns the field name of the subject type t, recording a problem
// at where if it has none.
func (c *refChecker) field(t refType, name string, where *ast.Term) (facts.Field, bool) {
	f, ok := c.fields[t.t][name]
	if !ok {
		c.problem(where, fmt.Sprintf("%s has no fact %q (see docs/policies.md, \"Facts\"): the ref is always undefined", t.t.Name(), name))
	}
	return f, ok
}

func (c *refChecker) problem(where *ast.Term, msg string) {
	c.out.problems = append(c.out.problems, fromLocation(where.Location, msg))
}

// typeOf is what t denotes. With report, it records unknown fields and
// computed keys along a ref.
func (c *refChecker) typeOf(t *ast.Term, env map[ast.Var]refType, report bool) refType {
	switch v := t.Value.(type) {
	case ast.Var:
		if v.Equal(ast.InputRootDocument.Value) {
			return refType{kind: refInput}
		}
		return env[v]
	case ast.Ref:
		var cur refType
		switch h := v[0].Value.(type) {
		case ast.Var:
			if h.Equal(ast.InputRootDocument.Value) {
				cur = refType{kind: refInput}
			} else {
				cur = env[h]
			}
		}
		for _, k := range v[1:] {
			if cur.kind == refUnknown {
				return cur
			}
			key, isString := k.Value.(ast.String)
			switch cur.kind {
			case refInput:
				switch {
				case isString && key == "functions":
					cur = refType{refSubjects, reflect.TypeFor[facts.Function]()}
				case isString && key == "variables":
					cur = refType{refSubjects, reflect.TypeFor[facts.Variable]()}
				case isString && key == "features":
					return refType{}
				case isString:
					if report {
						c.problem(k, fmt.Sprintf("input has no %q: it holds \"features\", \"functions\" (or \"variables\")", string(key)))
					}
					return refType{}
				default:
					if report {
						c.out.computed = true
					}
					return refType{}
				}
			case refSubjects, refList:
				cur = refType{refObject, cur.t}
			case refObject:
				if !isString {
					if report {
						c.out.computed = true
					}
					return refType{}
				}
				f, ok := c.fields[cur.t][string(key)]
				if !ok {
					if report {
						c.field(cur, string(key), k)
					}
					return refType{}
				}
				switch f.Kind {
				case facts.List:
					cur = refType{refList, f.Elem}
				case facts.Object, facts.Nullable:
					cur = refType{refObject, f.Elem}
				default:
					return refType{}
				}
			}
		}
		return cur
	}
	return refType{}
}
