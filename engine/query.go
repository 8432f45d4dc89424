package engine

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/print"
)

// The engine compiles and evaluates its queries with the ast compiler and
// topdown directly, as OPA's rego package does for the options it used to
// be given (a compiler of ours, an inmem store, Rego v1, strict builtin
// errors, results kept as AST terms): the rego package links OPA's Wasm
// compiler, planner, bundle loader and more, whose package initialisation
// every btfgate process paid for.

// compileModules compiles modules (by file name) on c as rego's
// PrepareForEval does for modules it is given: paths the store holds data
// at are conflicts for rules, checked on a read transaction.
func compileModules(ctx context.Context, c *ast.Compiler, store storage.Store, modules []*ast.Module) error {
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return err
	}
	defer store.Abort(ctx, txn)
	byFile := make(map[string]*ast.Module, len(modules))
	for _, m := range modules {
		name := fmt.Sprintf("module_%p.rego", m)
		if m.Package.Location != nil {
			name = m.Package.Location.File
		}
		byFile[name] = m
	}
	nonEmpty := storage.NonEmpty(ctx, store, txn)
	defer c.WithPathConflictsCheck(nil) // the transaction ends here
	if c.WithPathConflictsCheck(nonEmpty).Compile(byFile); c.Failed() {
		return c.Errors
	}
	if errs := ast.CheckPathConflicts(c, nonEmpty); len(errs) > 0 {
		return errs
	}
	return nil
}

// preparedQuery is a query compiled against a compiler holding the
// policies, ready to be evaluated any number of times, concurrently.
type preparedQuery struct {
	compiler *ast.Compiler
	// qc compiled the query; nil for a query a policy cache held
	// compiled, which is one compiledQueries keeps: evaluation asks the
	// query compiler only for the query's rewritten variables and
	// comprehension indices, and such a query has neither.
	qc     ast.QueryCompiler
	body   ast.Body
	result ast.Var // bound to the value of the query's reference
	store  storage.Store
	hook   print.Hook // receives print() calls; nil drops them
	strict bool       // builtin errors fail the evaluation
}

// resultVar is the variable a query's value is bound to, named as the
// rego package names it (a wildcard: never in a policy, never reported).
const resultVar = ast.Var(ast.WildcardPrefix + "term1")

// prepareQuery compiles query, one reference (such as data.p.r), on c,
// whose modules are compiled. print keeps print() calls in the query (the
// modules' are kept or not by c); hook receives them, nil drops them;
// strict makes builtin errors fail the evaluation instead of leaving the
// expression undefined.
func prepareQuery(c *ast.Compiler, store storage.Store, query string, print bool, hook print.Hook, strict bool) (*preparedQuery, error) {
	parsed, err := ast.ParseBodyWithOpts(query, ast.ParserOptions{RegoVersion: ast.RegoV1, SkipRules: true, Capabilities: c.Capabilities()})
	if err != nil {
		return nil, err
	}
	qc := c.QueryCompiler().
		WithContext(ast.NewQueryContext()).
		WithEnablePrintStatements(print).
		WithStrict(false).
		WithStageAfterID("ResolveRefs", ast.QueryCompilerStageDefinition{
			Name:       "RewriteToCaptureValue",
			MetricName: "query_compile_stage_rewrite_to_capture_value",
			Stage:      captureValue,
		})
	body, err := qc.Compile(parsed)
	if err != nil {
		return nil, err
	}
	return &preparedQuery{compiler: c, qc: qc, body: body, result: resultVar, store: store, hook: hook, strict: strict}, nil
}

// compiledQueries returns the bodies of the queries (by query text) that
// a policy cache may hold compiled for the compiler they were compiled
// on: those whose compile rewrote no variable and indexed no
// comprehension, which evaluation would ask their query compiler about.
// A nil query is left out.
func compiledQueries(queries map[string]*preparedQuery) map[string]ast.Body {
	out := map[string]ast.Body{}
	for text, q := range queries {
		if q == nil || q.qc == nil || len(q.qc.RewrittenVars()) > 0 || ast.ContainsComprehensions(q.body) {
			continue
		}
		out[text] = q.body
	}
	return out
}

// captureValue rewrites a query of one reference, r, to r = resultVar, so
// that evaluation binds the reference's value.
func captureValue(_ ast.QueryCompiler, query ast.Body) (ast.Body, error) {
	if len(query) != 1 {
		return nil, fmt.Errorf("query %v: want one reference", query)
	}
	t, ok := query[0].Terms.(*ast.Term)
	if !ok || query[0].Negated {
		return nil, fmt.Errorf("query %v: want one reference", query)
	}
	query[0].Terms = ast.Equality.Expr(t, ast.NewTerm(resultVar)).Terms
	return query, nil
}

// evalOptions are an evaluation's own settings.
type evalOptions struct {
	input  ast.Value           // nil: no input
	tracer topdown.QueryTracer // nil: no trace
}

// eval evaluates the query on a read transaction of its own and returns
// the reference's value, nil if it is undefined or has more than one
// value. Evaluation stops when ctx is done.
func (q *preparedQuery) eval(ctx context.Context, opts evalOptions) (*ast.Term, error) {
	txn, err := q.store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer q.store.Abort(ctx, txn)
	cancel := topdown.NewCancel()
	tq := topdown.NewQuery(q.body).
		WithQueryCompiler(q.qc).
		WithCompiler(q.compiler).
		WithStore(q.store).
		WithTransaction(txn).
		WithIndexing(true).
		WithEarlyExit(true).
		WithStrictBuiltinErrors(q.strict).
		WithPrintHook(q.hook).
		WithCancel(cancel)
	if opts.input != nil {
		tq = tq.WithInput(ast.NewTerm(opts.input))
	}
	if opts.tracer != nil {
		tq = tq.WithQueryTracer(opts.tracer)
	}
	exit := make(chan struct{})
	defer close(exit)
	go func() {
		select {
		case <-exit:
		case <-ctx.Done():
			cancel.Cancel()
		}
	}()
	var value *ast.Term
	n := 0
	growStack()
	err = tq.Iter(ctx, func(qr topdown.QueryResult) error {
		value = qr[q.result]
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n != 1 {
		return nil, nil
	}
	return value, nil
}

// evalStackFrame is half the stack growStack makes room for: the
// evaluation of the default policies on a batch of a few functions
// reaches between 128 and 256 KB of stack (topdown recurses at every
// step), and BenchmarkDecideSmall is fastest with room for 256 KB.
const evalStackFrame = 100 << 10

// growStack makes the calling goroutine's stack hold at least about
// 2*evalStackFrame more bytes, at once, while it is shallow. A goroutine
// starts with a few KB of stack and, each time it outgrows it, gets one
// twice the size, to which the runtime copies the whole stack and adjusts
// every frame: an evaluation on a new goroutine copied its stack at each
// doubling up to 256 KB, which cost more than deciding a small module's
// functions. The runtime sizes a stack for the largest frame it must
// hold, so one frame of two arrays (each small enough to be kept on the
// stack) grows it once; the arrays are zeroed, as every Go variable is.
//
//go:noinline
func growStack() {
	var a, b [evalStackFrame]byte
	keepOnStack(a[:], b[:])
}

// keepOnStack uses a and b so that growStack's frame keeps them, without
// letting them escape to the heap.
//
//go:noinline
func keepOnStack(a, b []byte) { a[0], b[0] = 1, 1 }
