package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// DecideFunctions decides every function group. The groups are split into
// contiguous batches, one per worker (jobs of them; jobs <= 0 means
// GOMAXPROCS), but no smaller than minBatch groups, each evaluated by its
// own goroutine in queries of at most maxQuery groups. Decisions come
// back in the order of fns and do not depend on jobs. Function ids must
// be unique.
//
// If deny rules name functions, the error is a *ViolationsError listing
// every one, and the decisions come back with it, complete, for callers
// that show what was refused; on any other error they are nil. Malformed
// rule documents and keep/exclude conflicts are reported before
// violations.
func (e *Engine) DecideFunctions(ctx context.Context, fns []facts.Function, jobs int) ([]Decision, error) {
	return e.NewSession(fns, jobs).DecideFunctions(ctx)
}

// Session evaluates the policies over one list of function groups, in
// batches (as DecideFunctions cuts them), and builds each function's part
// of the input once for every query it runs: SelectTrueSignature, then DecideFunctions, read the
// same input but for the functions marked Changed in between.
// DecideFunctions, the last query, drops each piece's objects once it is
// evaluated. It is not safe for concurrent use.
type Session struct {
	e      *Engine
	fns    []facts.Function
	jobs   int           // how many batches
	terms  []*ast.Term   // each function's input object, once built
	shared []*batchTerms // each batch's shared objects
	index  map[int]int
	err    error // from indexIDs
}

// NewSession starts a session over fns, which it reads at each query (the
// caller may change a function between queries, and must then call
// Changed). jobs <= 0 means GOMAXPROCS.
func (e *Engine) NewSession(fns []facts.Function, jobs int) *Session {
	jobs = batches(jobs, len(fns), e.minBatch)
	s := &Session{e: e, fns: fns, jobs: jobs, terms: make([]*ast.Term, len(fns)), shared: make([]*batchTerms, jobs)}
	for j := range s.shared {
		s.shared[j] = newBatchTerms()
	}
	s.index, s.err = indexIDs(fns)
	return s
}

// Changed says that fns[i] changed since the last query.
func (s *Session) Changed(i int) { s.terms[i] = nil }

// minBatch is the fewest items (functions or variables) a batch of its
// own is given. A query costs, whatever its size, about what deciding a
// few tens of functions does (the default policies on a shared 2-core
// machine: 140 to 230 µs for a query on one function, 6.7 to 9 µs of CPU
// per function in BenchmarkDecideKernel): cutting n functions in two
// batches saves half their time on the clock and costs one query more of
// CPU, worth it from about 64. A small module's handful of functions is
// one batch. Tests that check that decisions do not depend on the
// batches lower it (Engine.minBatch, smallBatches).
const minBatch = 64

// batches is how many batches n items are cut into with jobs workers
// (jobs <= 0 means GOMAXPROCS): one per worker, each of at least least
// items, and at least one.
func batches(jobs, n, least int) int {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	return max(min(jobs, n/max(least, 1)), 1)
}

// bounds is batch j's slice [lo, hi) of the functions.
func (s *Session) bounds(j int) (lo, hi int) {
	return j * len(s.fns) / s.jobs, (j + 1) * len(s.fns) / s.jobs
}

// maxQuery is the most functions one query reads. A batch is evaluated
// in queries of at most this many (its pieces), one after the other, so
// that only one piece's input and result per job are live at a time: the
// corpus kernel's 44,811 groups as one input hold about 45 MB until the
// phase ends. A rule decides a group from its own facts, so the pieces
// decide as the whole batch would.
const maxQuery = 4096

// pieces calls fn with batch j's pieces [lo, hi), in order, and stops at
// the first error fn returns.
func (s *Session) pieces(j int, fn func(lo, hi int) error) error {
	lo, hi := s.bounds(j)
	n := (hi - lo + maxQuery - 1) / maxQuery
	for k := range n {
		if err := fn(lo+k*(hi-lo)/n, lo+(k+1)*(hi-lo)/n); err != nil {
			return err
		}
	}
	return nil
}

// pieceInput is the input document of functions [lo, hi) of batch j. Their
// objects are built once and kept for the session's next query, until
// forget drops them.
func (s *Session) pieceInput(j, lo, hi int) ast.Value {
	return s.e.input.input(s.e.features, s.fns[lo:hi], s.terms[lo:hi], s.shared[j])
}

// forget drops the objects of functions [lo, hi): no later query reads
// them (DecideFunctions is the session's last).
func (s *Session) forget(lo, hi int) { clear(s.terms[lo:hi]) }

// DecideFunctions is Engine.DecideFunctions on the session's functions.
func (s *Session) DecideFunctions(ctx context.Context) ([]Decision, error) {
	ctx, done := s.e.limits.bounded(ctx)
	out, err := s.decideFunctions(ctx)
	return out, done(err)
}

func (s *Session) decideFunctions(ctx context.Context) ([]Decision, error) {
	if s.err != nil {
		return nil, s.err
	}
	fns, e := s.fns, s.e
	out := make([]Decision, len(fns))
	for i := range fns {
		out[i] = Decision{ID: fns[i].ID, Name: fns[i].Name, Include: true}
	}
	if len(fns) == 0 {
		return out, nil
	}
	jobs := s.jobs

	all, err := runBatches(ctx, jobs, func(ctx context.Context, j int) (batchReport, error) {
		var report batchReport
		err := s.pieces(j, func(lo, hi int) error {
			r, err := e.decideBatch(ctx, batch{fns: fns, out: out, index: s.index, lo: lo, hi: hi}, s.pieceInput(j, lo, hi))
			s.forget(lo, hi)
			report.add(r)
			return err
		})
		return report, err
	})
	if err != nil {
		return nil, err
	}
	if err := problemsError(all.problems); err != nil {
		return nil, err
	}
	if err := conflictsError(all.conflicts); err != nil {
		return nil, err
	}
	if err := violationsError(all.violations); err != nil {
		return out, err // the decisions stand; the policies refuse them
	}
	return out, nil
}

// batchReport holds what a batch found wrong with the policies' verdicts,
// reported once all batches are done so that the error does not depend on
// how the functions were split. Problems come first (the verdicts are
// incomplete), then conflicts (there is no outcome), then violations (deny
// rules refuse the outcome).
type batchReport struct {
	problems   []string
	conflicts  []conflict
	violations []Violation
}

// add appends o's findings to r's.
func (r *batchReport) add(o batchReport) {
	r.problems = append(r.problems, o.problems...)
	r.conflicts = append(r.conflicts, o.conflicts...)
	r.violations = append(r.violations, o.violations...)
}

// firstError returns the first error that is not a cancellation caused by
// another batch's failure.
// runBatches runs one batch per job on goroutines of their own, each with
// a context canceled when any batch fails, and returns their reports
// joined in job order, or the first batch error that is not the
// cancellation another caused.
func runBatches(ctx context.Context, jobs int, run func(ctx context.Context, j int) (batchReport, error)) (batchReport, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, jobs)
	reports := make([]batchReport, jobs)
	var wg sync.WaitGroup
	for j := range jobs {
		wg.Go(func() {
			reports[j], errs[j] = run(ctx, j)
			if errs[j] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	var all batchReport
	if err := firstError(errs); err != nil {
		return all, err
	}
	for _, r := range reports {
		all.add(r)
	}
	return all, nil
}

func firstError(errs []error) error {
	var canceled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			canceled = err
		default:
			return err
		}
	}
	return canceled
}

// indexIDs maps each function id to the function's index; it fails if two
// functions share an id, since decisions are keyed by it.
func indexIDs(fns []facts.Function) (map[int]int, error) {
	index := make(map[int]int, len(fns))
	for i := range fns {
		if j, dup := index[fns[i].ID]; dup {
			return nil, coded(CodeInput, fmt.Errorf("deciding functions: id %d used by both %s and %s", fns[i].ID, fns[j].Name, fns[i].Name))
		}
		index[fns[i].ID] = i
	}
	return index, nil
}

// batch is the slice [lo, hi) of the functions, and where their decisions
// go. index maps ids to positions in fns and out; batches share it and
// only read it.
type batch struct {
	fns    []facts.Function
	out    []Decision
	index  map[int]int
	lo, hi int
	// origins, if set, attributes the batch's rules (variables' rules
	// live in another package than functions').
	origins map[string]string
}

// decideBatch evaluates one batch and fills in the decisions of the
// functions that some rule named; the others keep the decision they
// already hold (included, no reasons).
func (e *Engine) decideBatch(ctx context.Context, b batch, input ast.Value) (batchReport, error) {
	if err := ctx.Err(); err != nil {
		return batchReport{}, err
	}
	result, err := e.query.eval(ctx, evalOptions{input: input})
	if ctx.Err() != nil {
		return batchReport{}, ctx.Err()
	}
	if err != nil {
		return batchReport{}, coded(CodeEval, fmt.Errorf("evaluating policies: %w", policyErrors(err, nil)))
	}
	if result == nil {
		return batchReport{}, coded(CodeInternal, fmt.Errorf("evaluating policies: %s is undefined", decisionQuery))
	}
	obj, ok := result.Value.(ast.Object)
	if !ok {
		return batchReport{}, coded(CodeInternal, fmt.Errorf("evaluating policies: %s is %s, want an object", decisionQuery, ast.ValueName(result.Value)))
	}
	if !wellFormed(obj, input, "functions") {
		ps, err := e.shapeProblems(ctx, e.shapes, input, "policies")
		if err != nil || len(ps) > 0 {
			return batchReport{problems: ps}, err
		}
	}
	return e.assemble(obj, b)
}
