package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// The policy test runner runs test rules as OPA's tester package (opa
// test) does, on topdown: the tester links OPA's rego package and with it
// the Wasm compiler, bundle loader and more, whose package initialisation
// every btfgate process paid for.
//
// A rule is a test when a part of its head's ground prefix starts with
// testPrefix; skipTestPrefix marks a test to skip. A test passes when its
// value is true; a test whose head names cases after the test's name
// (test_x[name] if ...) passes when every case is true and no case that
// began (see injectTestCases) is missing.

const (
	testPrefix     = "test_"
	skipTestPrefix = "todo_test_"
	// testTimeout bounds each test's evaluation.
	testTimeout = 5 * time.Second
)

// testCompiler returns the compiler for policy tests (capabilities caps,
// Rego v1, print statements kept), with the stages that number tests of
// the same name and mark where each case of a test begins.
func testCompiler(caps *ast.Capabilities) *ast.Compiler {
	return ast.NewCompiler().
		WithCapabilities(caps).
		WithEnablePrintStatements(true).
		WithDefaultRegoVersion(ast.RegoV1).
		WithStageAfterID(ast.StageRewriteRuleHeadRefs, ast.CompilerStageDefinition{
			Name:       "RewriteDuplicateTestNames",
			MetricName: "rewrite_duplicate_test_names",
			Stage:      numberDuplicateTests,
		}).
		WithStageAfterID(ast.StageRewriteLocalVars, ast.CompilerStageDefinition{
			Name:       "InjectTestCaseFunc",
			MetricName: "inject_test_case_func",
			Stage:      injectTestCases,
		})
}

// testName returns the name of the test a rule head defines, the first
// part of its ground prefix that starts with testPrefix or
// skipTestPrefix (else the last part), and the prefix up to it.
func testName(h *ast.Head) (string, ast.Ref) {
	ground := h.Ref().GroundPrefix()
	var name string
	i := 0
	for i = range ground {
		name = ""
		switch v := ground[i].Value.(type) {
		case ast.Var:
			name = string(v)
		case ast.String:
			name = string(v)
		}
		if strings.HasPrefix(name, testPrefix) || strings.HasPrefix(name, skipTestPrefix) {
			break
		}
	}
	return name, ground[:i+1]
}

// isTest reports whether a part of the rule head's ground prefix starts
// with testPrefix or skipTestPrefix.
func isTest(r *ast.Rule) bool {
	for _, t := range r.Head.Ref().GroundPrefix() {
		var name string
		switch v := t.Value.(type) {
		case ast.Var:
			name = string(v)
		case ast.String:
			name = string(v)
		}
		if strings.HasPrefix(name, testPrefix) || strings.HasPrefix(name, skipTestPrefix) {
			return true
		}
	}
	return false
}

// numberDuplicateTests renames the second and later tests of a name in a
// package NAME#01, NAME#02..., so that each runs and is reported on its
// own.
func numberDuplicateTests(c *ast.Compiler) *ast.Error {
	count := map[string]int{}
	for _, m := range c.Modules {
		for _, r := range m.Rules {
			name, ref := testName(r.Head)
			if !strings.HasPrefix(name, testPrefix) {
				continue
			}
			key := m.Package.Path.Extend(ref).String()
			if k, seen := count[key]; seen {
				tail := r.Head.Ref()[len(ref):]
				renamed := fmt.Sprintf("%s#%02d", name, k)
				if len(ref) == 1 {
					ref[0] = ast.VarTerm(renamed)
				} else {
					ref[len(ref)-1] = ast.StringTerm(renamed)
				}
				r.Head.SetRef(append(ref, tail...))
			}
			count[key]++
		}
	}
	return nil
}

// injectTestCases puts a call internal.test_case([case...]) in the body
// of each test whose head names cases after the test's name (and that
// does not call it already), as early as the case's variables are bound:
// the call's trace event records that the case began, so that a case
// whose body then fails is reported although it has no value. Generated
// assignments of the case variables are first moved up to just after the
// expressions binding the variables they read.
func injectTestCases(c *ast.Compiler) *ast.Error {
	for _, m := range c.Modules {
		for _, r := range m.Rules {
			name, nameRef := testName(r.Head)
			if !strings.HasPrefix(name, testPrefix) || callsTestCase(r.Body) {
				continue
			}
			ref := r.Head.Ref()
			if len(ref) <= len(nameRef) {
				continue
			}
			cases := ref[len(nameRef):]
			for _, t := range cases {
				r.Body = hoistCaseAssignment(r.Body, t)
			}
			// The call goes after the first use of every case variable.
			at := -1
			for _, t := range cases {
				for i, e := range r.Body {
					if mentionsVar(e, t.Value) {
						at = max(at, i)
						break
					}
				}
			}
			call := ast.NewExpr([]*ast.Term{
				ast.NewTerm(ast.Interned.Refs.InternalTestCase.Copy()), // later stages rewrite it in place
				ast.NewTerm(ast.NewArray(cases...)),
			})
			r.Body = slices.Insert(r.Body, min(at+1, len(r.Body)), call)
		}
	}
	return nil
}

// callsTestCase reports whether body calls internal.test_case.
func callsTestCase(body ast.Body) bool {
	found := false
	ast.WalkExprs(body, func(e *ast.Expr) bool {
		if e.IsCall() && e.Operator().Equal(ast.Interned.Refs.InternalTestCase) {
			found = true
		}
		return found
	})
	return found
}

// mentionsVar reports whether e mentions the variable v (false when v is
// not a variable).
func mentionsVar(e *ast.Expr, v ast.Value) bool {
	found := false
	ast.WalkVars(e, func(x ast.Var) bool {
		if x.Equal(v) {
			found = true
		}
		return false
	})
	return found
}

// hoistCaseAssignment moves each generated assignment of the case
// variable t, from the end of body up, to just after the expressions
// that first mention the local variables it reads (to the top if it
// reads none).
func hoistCaseAssignment(body ast.Body, t *ast.Term) ast.Body {
	for i := len(body) - 1; i >= 0; {
		e := body[i]
		if !e.Generated || !(e.IsEquality() || e.IsAssignment()) || !e.Operand(0).Equal(t) {
			i--
			continue
		}
		reads := ast.NewVarSet()
		ast.WalkVars(e.Operand(1), func(v ast.Var) bool {
			if strings.HasPrefix(string(v), ast.LocalVarPrefix) {
				reads.Add(v)
			}
			return false
		})
		to := 0
		if len(reads) > 0 {
			// After the first mention of each variable read, the latest.
			first := map[ast.Var]int{}
			for j := i - 1; j >= 0; j-- {
				ast.WalkVars(body[j], func(v ast.Var) bool {
					if reads.Contains(v) {
						first[v] = j
						return true
					}
					return false
				})
			}
			last := 0
			for _, j := range first {
				last = max(last, j)
			}
			if last >= i {
				i--
				continue
			}
			to = last + 1
		}
		if to == i {
			i--
			continue
		}
		body = slices.Insert(slices.Delete(body, i, i+1), to, e)
	}
	return body
}

// runCompiledTests runs the tests of the compiled modules, as many at a
// time as there are CPUs, each bounded by testTimeout; it stops starting
// tests when ctx is done.
func runCompiledTests(ctx context.Context, c *ast.Compiler, store storage.Store) []TestResult {
	var (
		mu  sync.Mutex
		out []TestResult
		wg  sync.WaitGroup
	)
	slots := make(chan struct{}, runtime.NumCPU())
	for _, m := range c.Modules {
		for _, r := range m.Rules {
			if !isTest(r) {
				continue
			}
			wg.Go(func() {
				select {
				case slots <- struct{}{}:
					defer func() { <-slots }()
				case <-ctx.Done():
					return
				}
				if ctx.Err() != nil {
					return
				}
				tctx, cancel := context.WithTimeout(ctx, testTimeout)
				defer cancel()
				res := runTest(tctx, c, store, m, r)
				mu.Lock()
				out = append(out, res)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	return out
}

// runTest evaluates one test rule of module m, with its print() output
// and a trace to say which expression failed.
func runTest(ctx context.Context, c *ast.Compiler, store storage.Store, m *ast.Module, r *ast.Rule) TestResult {
	name, ref := testName(r.Head)
	res := TestResult{Name: m.Package.Path.String() + "." + ref.String()}
	if loc := r.Loc(); loc != nil {
		res.File, res.Line = loc.File, loc.Row
	}
	if strings.HasPrefix(name, skipTestPrefix) {
		res.Skipped = true
		return res
	}
	var output bytes.Buffer
	trace := topdown.NewBufferTracer()
	ctx = ast.WithCompiler(ctx, c)
	start := time.Now()
	q, err := prepareQuery(c, store, r.Module.Package.Path.Extend(ref).String(), false, topdown.NewPrintHook(&output), false)
	var value *ast.Term
	if err == nil {
		value, err = q.eval(ctx, evalOptions{tracer: trace})
	}
	res.Elapsed = time.Since(start)
	res.Output = output.String()
	var fail bool
	switch {
	case err != nil:
		res.Failure = policyErrors(err, nil).Error()
		return res
	case value == nil:
		fail = true
	case r.Head.DocKind() == ast.PartialObjectDoc:
		fail = casesFail(value.Value, *trace)
	default:
		fail = !ast.Boolean(true).Equal(value.Value)
	}
	if !fail {
		res.Pass = true
		return res
	}
	res.Failure = "failed"
	if expr := failedExpr(*trace, r.Location); expr != nil {
		res.Failure = fmt.Sprintf("%s:%d: false: %s", expr.Location.File, expr.Location.Row, expr.Location.Text)
	}
	return res
}

// failedExpr finds the expression of the test's body that was false: the
// last one the trace saw fail in the test's own file.
func failedExpr(trace []*topdown.Event, test *ast.Location) *ast.Expr {
	for i := len(trace) - 1; i >= 0; i-- {
		ev := trace[i]
		expr, ok := ev.Node.(*ast.Expr)
		if ev.Op != topdown.FailOp || !ok || expr.Location == nil || test == nil || expr.Location.File != test.File {
			continue
		}
		return expr
	}
	return nil
}

// testCase is a case of a test with cases, or a case within a case.
type testCase struct {
	fail  bool
	cases map[string]*testCase
}

// casesFail reports whether a test with cases failed: a case's value is
// not true (or, for cases within it, one of those failed), or a case
// began (a test-case event in the trace) and has no value.
func casesFail(v ast.Value, trace []*topdown.Event) bool {
	doc, err := ast.JSON(v)
	if err != nil {
		return true
	}
	fail, cases := caseResults(doc)
	for _, ev := range trace {
		if ev.Op != topdown.TestCaseOp {
			continue
		}
		expr, ok := ev.Node.(*ast.Expr)
		if !ok {
			continue
		}
		path, ok := expr.Operand(0).Value.(*ast.Array)
		if !ok {
			continue
		}
		names := make([]string, path.Len())
		for i := range names {
			names[i] = caseName(path.Elem(i))
		}
		if caseBegan(cases, names) {
			fail = true
		}
	}
	return fail
}

// caseResults returns whether any case of doc, a test's value as JSON,
// failed, and the cases by name.
func caseResults(doc any) (bool, map[string]*testCase) {
	cases := map[string]*testCase{}
	if doc == nil {
		return true, cases
	}
	fail := false
	if m, ok := doc.(map[string]any); ok {
		for k, v := range m {
			c := caseResult(v)
			cases[k] = c
			fail = fail || c.fail
		}
	}
	return fail, cases
}

func caseResult(v any) *testCase {
	switch v := v.(type) {
	case nil:
		return &testCase{}
	case map[string]any:
		fail, cases := caseResults(v)
		return &testCase{fail: fail, cases: cases}
	case bool:
		return &testCase{fail: !v}
	}
	return &testCase{fail: true}
}

// caseBegan records that the case at path began and reports whether it
// failed: one that has no value did.
func caseBegan(cases map[string]*testCase, path []string) bool {
	if len(path) == 0 {
		return true
	}
	c, ok := cases[path[0]]
	if !ok {
		c = &testCase{fail: true, cases: map[string]*testCase{}}
		cases[path[0]] = c
	}
	if len(path) == 1 {
		return c.fail
	}
	if c.cases == nil {
		c.cases = map[string]*testCase{}
	}
	fail := caseBegan(c.cases, path[1:])
	if fail {
		c.fail = true
	}
	return fail
}

// caseName is a case's name as JSON object keys name it: a string as it
// is, another value in JSON.
func caseName(t *ast.Term) string {
	v, err := ast.ValueToInterface(t.Value, noRefs{})
	if err != nil {
		return "INVALID"
	}
	if s, ok := v.(string); ok {
		return s
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return "INVALID"
	}
	return strings.TrimSpace(buf.String())
}

// noRefs resolves no reference (a case name is a value).
type noRefs struct{}

func (noRefs) Resolve(ast.Ref) (any, error) {
	return nil, errors.New("unknown reference")
}
