package engine

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
)

// variableQuery is policies/variables/decision.rego's verdict on a batch
// of variables, in the shape of decisionQuery's; variableProblemsQuery
// lists its malformed rule entries, as problemsQuery does for functions.
const (
	variableQuery         = "data.btfgate.variable_decision.verdicts"
	variableProblemsQuery = "data.btfgate.variable_decision.problems"
)

// variableRules is the engine's variable decision and problems queries
// and the modules of package btfgate.variables by rule.
type variableRules struct {
	query   *preparedQuery
	shapes  *preparedQuery // variableProblemsQuery
	origins map[string]string
}

// prepareVariables compiles the variable decision and problems queries in
// env, as the function queries. origins are the modules of package
// btfgate.variables by rule.
func prepareVariables(env queryEnv, origins map[string]string) (*variableRules, error) {
	v := &variableRules{origins: origins}
	var err error
	if v.query, err = env.prepare(variableQuery); err == nil {
		v.shapes, err = env.prepare(variableProblemsQuery)
	}
	if err != nil {
		return nil, coded(CodeCompile, fmt.Errorf("compiling variable policies: %w", policyErrors(err, forbiddenBuiltins())))
	}
	return v, nil
}

// DecideVariables decides every variable as DecideFunctions decides
// functions: in contiguous batches, one per worker (jobs <= 0 means
// GOMAXPROCS) but no smaller than minBatch variables, one query each,
// with the decisions in the order of vars whatever jobs is.
// Variable ids must be unique. Decision.Final is the first of pahole's
// variable reasons that applied (policies/variables/pahole.rego), "" if
// pahole encodes the variable; annotations have component -1.
//
// Deny entries make the error a *ViolationsError, returned with the
// complete decisions; malformed rule documents and keep/exclude conflicts
// are reported first, without decisions.
func (e *Engine) DecideVariables(ctx context.Context, vars []facts.Variable, jobs int) ([]Decision, error) {
	ctx, done := e.limits.bounded(ctx)
	out, err := e.decideVariables(ctx, vars, jobs)
	return out, done(err)
}

func (e *Engine) decideVariables(ctx context.Context, vars []facts.Variable, jobs int) ([]Decision, error) {
	out := make([]Decision, len(vars))
	index := make(map[int]int, len(vars))
	for i := range vars {
		if j, dup := index[vars[i].ID]; dup {
			return nil, coded(CodeInput, fmt.Errorf("deciding variables: id %d used by both %s and %s", vars[i].ID, vars[j].Name, vars[i].Name))
		}
		index[vars[i].ID] = i
		out[i] = Decision{ID: vars[i].ID, Name: vars[i].Name, Include: true}
	}
	if len(vars) == 0 {
		return out, nil
	}
	jobs = batches(jobs, len(vars), e.minBatch)
	all, err := runBatches(ctx, jobs, func(ctx context.Context, j int) (batchReport, error) {
		lo, hi := j*len(vars)/jobs, (j+1)*len(vars)/jobs
		b := batch{out: out, index: index, lo: lo, hi: hi, origins: e.vars.origins}
		return e.decideVariableBatch(ctx, b, e.input.variableInput(e.features, vars[lo:hi], newBatchTerms()))
	})
	if err != nil {
		return nil, err
	}
	if err := problemsError(all.problems); err != nil {
		return nil, fmt.Errorf("variables: %w", err)
	}
	if err := conflictsError(all.conflicts); err != nil {
		return nil, fmt.Errorf("variables: %w", err)
	}
	for i := range all.violations {
		all.violations[i].Variable = true
	}
	if err := violationsError(all.violations); err != nil {
		return out, err
	}
	for i := range out {
		for j := range out[i].Annotations {
			if out[i].Annotations[j].Component != -1 {
				a := out[i].Annotations[j]
				return nil, coded(CodeDocument, fmt.Errorf("evaluating policies: variable %s (id %d): annotate.%s: tag %q has component %d; a variable's tags have none",
					out[i].Name, out[i].ID, a.Rule, a.Value, a.Component))
			}
		}
	}
	return out, nil
}

// decideVariableBatch evaluates one batch of variables.
func (e *Engine) decideVariableBatch(ctx context.Context, b batch, input ast.Value) (batchReport, error) {
	if err := ctx.Err(); err != nil {
		return batchReport{}, err
	}
	result, err := e.vars.query.eval(ctx, evalOptions{input: input})
	if ctx.Err() != nil {
		return batchReport{}, ctx.Err()
	}
	if err != nil {
		return batchReport{}, coded(CodeEval, fmt.Errorf("evaluating variable policies: %w", policyErrors(err, nil)))
	}
	if result == nil {
		return batchReport{}, coded(CodeInternal, fmt.Errorf("evaluating variable policies: %s is undefined", variableQuery))
	}
	obj, ok := result.Value.(ast.Object)
	if !ok {
		return batchReport{}, coded(CodeInternal, fmt.Errorf("evaluating variable policies: %s is %s, want an object", variableQuery, ast.ValueName(result.Value)))
	}
	if !wellFormed(obj, input, "variables") {
		ps, err := e.shapeProblems(ctx, e.vars.shapes, input, "variable policies")
		if err != nil || len(ps) > 0 {
			return batchReport{problems: ps}, err
		}
	}
	report, err := e.assemble(obj, b)
	if err != nil || len(report.problems) > 0 {
		return report, err
	}
	return report, paholeReasons(obj, b)
}

// paholeReasons puts pahole's reason (policies/variables/pahole.rego:
// pahole_reason = {id: RULE, ...}) first in each named variable's
// decision, with its message from pahole_messages, and sets Final to it
// when RULE is one of pahole_order, "" for the other variables.
// decision.rego's left_out already counts them.
func paholeReasons(result ast.Object, b batch) error {
	doc, _ := field(result, "pahole_reason").(ast.Object)
	msgs, _ := field(result, "pahole_messages").(ast.Object)
	rank := map[string]bool{}
	if order, ok := field(result, "pahole_order").(*ast.Array); ok {
		for i := range order.Len() {
			rank[text(order.Elem(i).Value)] = true
		}
	}
	for i := b.lo; i < b.hi; i++ {
		b.out[i].Final = ""
	}
	if doc == nil {
		return nil
	}
	// Most variables have pahole's reason alone: they share one slice of
	// it per reason (cap 1, so an append copies).
	reasons := map[string][]Reason{}
	return doc.Iter(func(k, v *ast.Term) error {
		id, ok := intValue(k.Value)
		rule, isStr := v.Value.(ast.String)
		if !ok || !isStr {
			return coded(CodeDocument, fmt.Errorf("evaluating variable policies: pahole_reason: want {id: rule name}, got %v: %v", k, v))
		}
		i, ok := b.index[id]
		if !ok || i < b.lo || i >= b.hi {
			return nil
		}
		alone, seen := reasons[string(rule)]
		if !seen {
			r := Reason{Rule: string(rule), Message: text(field(msgs, string(rule))), Module: b.origins["pahole_reason"]}
			if r.Message == "" {
				r.Message = r.Rule
			}
			alone = []Reason{r}
			reasons[string(rule)] = alone
		}
		r := alone[0]
		d := &b.out[i]
		if rank[r.Rule] {
			d.Final = r.Message
		}
		if len(d.Reasons) == 0 {
			d.Reasons = alone
		} else {
			d.Reasons = append([]Reason{r}, d.Reasons...)
		}
		if !d.Include {
			d.Annotations = nil
		}
		return nil
	})
}
