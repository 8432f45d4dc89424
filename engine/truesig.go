package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// trueSignatureQuery is decision.rego's selection of the functions that
// get their true signature: the true_signature documents and their shape
// problems.
const trueSignatureQuery = "data.btfgate.decision.true_signature_result"

// The true_signature selection query is compiled only when the policies
// can select functions for true signatures: a module other than the
// default set defines a true_signature rule (definesTrueSignature), or
// the default set is loaded and the configuration has a non-empty
// true_signature list (listsTrueSignature). Otherwise SelectTrueSignature
// returns nothing at no cost.

// listsTrueSignature reports whether the default set is loaded and the
// configuration has a non-empty true_signature list.
func listsTrueSignature(cfg Config) bool {
	list, ok := cfg.Data["true_signature"].([]any)
	return !cfg.NoDefault && ok && len(list) > 0
}

// definesTrueSignature reports whether a module other than the default
// set defines a true_signature rule.
func definesTrueSignature(modules []*ast.Module) bool {
	defaults := map[string]bool{}
	if ms, err := defaultModules(false); err == nil {
		for _, m := range ms {
			defaults[m.Name] = true
		}
	}
	pkg := ast.MustParseRef("data.btfgate.functions")
	doc := ast.MustParseRef("data.btfgate.functions.true_signature")
	for _, m := range modules {
		if m.Package.Location != nil && defaults[m.Package.Location.File] {
			continue
		}
		if m.Package.Path.HasPrefix(doc) {
			return true
		}
		if !m.Package.Path.Equal(pkg) {
			continue
		}
		for _, r := range m.Rules {
			ref := r.Head.Ref()
			if len(ref) > 0 && ref[0].Value.Compare(ast.Var("true_signature")) == 0 {
				return true
			}
		}
	}
	return false
}

// SelectsTrueSignature reports whether SelectTrueSignature can select
// anything: some module defines a true_signature rule, or the rules file
// lists functions under true_signature.
func (e *Engine) SelectsTrueSignature() bool { return e.trueSig != nil }

// SelectTrueSignature evaluates the true_signature documents over fns, in
// jobs batches as DecideFunctions does, and returns for each function (in
// the order of fns) the rules that select it, by rule and message; nil for
// a function no rule selects, and nil for all without selection rules
// (SelectsTrueSignature). Malformed documents are errors.
//
// The encoder calls it (on a Session) before DecideFunctions, with the
// facts as they are without true signatures, then recomputes the
// selected groups.
func (e *Engine) SelectTrueSignature(ctx context.Context, fns []facts.Function, jobs int) ([][]Reason, error) {
	return e.NewSession(fns, jobs).SelectTrueSignature(ctx)
}

// SelectTrueSignature is Engine.SelectTrueSignature on the session's
// functions.
func (s *Session) SelectTrueSignature(ctx context.Context) ([][]Reason, error) {
	ctx, done := s.e.limits.bounded(ctx)
	out, err := s.selectTrueSignature(ctx)
	return out, done(err)
}

func (s *Session) selectTrueSignature(ctx context.Context) ([][]Reason, error) {
	e, fns := s.e, s.fns
	if e.trueSig == nil || len(fns) == 0 {
		return nil, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	jobs := s.jobs
	out := make([][]Reason, len(fns))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, jobs)
	problems := make([][]string, jobs)
	var wg sync.WaitGroup
	for j := range jobs {
		wg.Go(func() {
			errs[j] = s.pieces(j, func(lo, hi int) error {
				ps, err := e.selectBatch(ctx, batch{fns: fns, index: s.index, lo: lo, hi: hi}, s.pieceInput(j, lo, hi), out)
				problems[j] = append(problems[j], ps...)
				return err
			})
			if errs[j] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	if err := problemsError(slices.Concat(problems...)); err != nil {
		return nil, err
	}
	for i := range out {
		slices.SortFunc(out[i], compareReasons)
	}
	return out, nil
}

// selectBatch evaluates the selection on one batch and fills in out for
// the functions some rule names.
func (e *Engine) selectBatch(ctx context.Context, b batch, input ast.Value, out [][]Reason) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	result, err := e.trueSig.eval(ctx, evalOptions{input: input})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, coded(CodeEval, fmt.Errorf("evaluating policies (true_signature): %w", policyErrors(err, nil)))
	}
	if result == nil {
		return nil, coded(CodeInternal, fmt.Errorf("evaluating policies: %s is undefined", trueSignatureQuery))
	}
	obj, ok := result.Value.(ast.Object)
	if !ok {
		return nil, coded(CodeInternal, fmt.Errorf("evaluating policies: %s is %s, want an object", trueSignatureQuery, ast.ValueName(result.Value)))
	}
	if ps := e.problems(field(obj, "problems")); len(ps) > 0 {
		return ps, nil
	}
	doc, _ := field(obj, "true_signature").(ast.Object)
	if doc == nil {
		return nil, nil
	}
	err = doc.Iter(func(ruleTerm, byIDTerm *ast.Term) error {
		rule := text(ruleTerm.Value)
		module := e.origins["true_signature."+rule]
		byID, ok := byIDTerm.Value.(ast.Object)
		if !ok {
			return nil // a problem, reported above
		}
		return byID.Iter(func(idTerm, values *ast.Term) error {
			id, ok := intValue(idTerm.Value)
			if !ok {
				return nil
			}
			i, ok := b.index[id]
			if !ok || i < b.lo || i >= b.hi {
				return nil
			}
			set, ok := values.Value.(ast.Set)
			if !ok {
				return nil
			}
			return set.Iter(func(t *ast.Term) error {
				msg, ok := t.Value.(ast.String)
				if !ok {
					return coded(CodeDocument, fmt.Errorf("evaluating policies: function %s (id %d): true_signature.%s: message %v is not a string", b.fns[i].Name, id, rule, t))
				}
				out[i] = append(out[i], Reason{Rule: rule, Message: string(msg), Module: module})
				return nil
			})
		})
	})
	return nil, err
}
