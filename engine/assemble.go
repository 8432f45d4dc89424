package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// assembly gathers, for one batch, each function's reasons from the rule
// documents of decision.rego's result.
type assembly struct {
	e    *Engine
	b    batch
	rank map[string]int // pahole's rules by precedence
	// kinds holds, for every function some rule names (by position in
	// b.out), the kind of each of its Reasons.
	kinds  map[int][]string
	report batchReport
	// origins maps "kind.rule" to modules: the batch's, else the engine's
	// function rules'.
	origins map[string]string
}

// assemble fills in the decisions of the batch's functions that some rule
// names, from decision.rego's verdicts, which must be wellFormed (or
// have no problems).
func (e *Engine) assemble(result ast.Object, b batch) (batchReport, error) {
	a := &assembly{e: e, b: b, rank: map[string]int{}, kinds: map[int][]string{}, origins: b.origins}
	if a.origins == nil {
		a.origins = e.origins
	}
	if order, ok := field(result, "pahole_order").(*ast.Array); ok {
		for i := range order.Len() {
			a.rank[text(order.Elem(i).Value)] = i
		}
	}
	left, _ := field(result, "left_out").(ast.Set)
	if left != nil {
		err := left.Iter(func(t *ast.Term) error {
			i, err := a.position(t)
			if err == nil {
				b.out[i].Include = false
			}
			return err
		})
		if err != nil {
			return a.report, err
		}
	}
	docs, _ := field(result, "documents").(ast.Object)
	for _, kind := range ruleKinds() {
		doc, _ := field(docs, kind).(ast.Object)
		if doc == nil {
			continue
		}
		if err := doc.Iter(func(rule, byID *ast.Term) error { return a.rule(kind, text(rule.Value), byID.Value) }); err != nil {
			return a.report, err
		}
	}
	for i, kinds := range a.kinds {
		a.order(&b.out[i], kinds)
	}
	if deny, ok := field(result, "deny").(ast.Object); ok {
		if err := deny.Iter(func(rule, byID *ast.Term) error { return a.deny(text(rule.Value), byID.Value) }); err != nil {
			return a.report, err
		}
	}
	conflicts, _ := field(result, "conflicts").(ast.Set)
	if conflicts != nil {
		err := conflicts.Iter(func(t *ast.Term) error {
			i, err := a.position(t)
			if err != nil {
				return err
			}
			var excluded []Reason
			for j, k := range a.kinds[i] {
				if k == "exclude" {
					excluded = append(excluded, b.out[i].Reasons[j])
				}
			}
			a.report.conflicts = append(a.report.conflicts, conflict{&b.out[i], excluded})
			return nil
		})
		if err != nil {
			return a.report, err
		}
	}
	return a.report, nil
}

// position finds the function a decision term names in the batch.
func (a *assembly) position(t *ast.Term) (int, error) {
	id, ok := intValue(t.Value)
	if !ok {
		return 0, coded(CodeDocument, fmt.Errorf("evaluating policies: %v is not a function id", t))
	}
	i, ok := a.b.index[id]
	if !ok || i < a.b.lo || i >= a.b.hi {
		return 0, coded(CodeDocument, fmt.Errorf("evaluating policies: id %d is not in the batch", id))
	}
	return i, nil
}

// eachOfBatch calls fn with the batch index and the set of values of each
// function of this batch that a rule document ({id: {value, ...}}) names.
// Entries of the wrong shape, and ids of other batches, are skipped: the
// problems decision.rego reports cover the shapes.
func (a *assembly) eachOfBatch(v ast.Value, fn func(i int, set ast.Set) error) error {
	byID, ok := v.(ast.Object)
	if !ok {
		return nil
	}
	return byID.Iter(func(idTerm, values *ast.Term) error {
		set, ok := values.Value.(ast.Set)
		if !ok {
			return nil
		}
		id, ok := intValue(idTerm.Value)
		if !ok {
			return nil
		}
		i, ok := a.b.index[id]
		if !ok || i < a.b.lo || i >= a.b.hi {
			return nil
		}
		return fn(i, set)
	})
}

// rule adds one rule's verdicts to the decisions it names. Documents of
// the wrong shape are left to the problems decision.rego reports.
func (a *assembly) rule(kind, rule string, v ast.Value) error {
	module := a.origins[kind+"."+rule]
	return a.eachOfBatch(v, func(i int, set ast.Set) error {
		d := &a.b.out[i]
		if _, seen := a.kinds[i]; !seen {
			a.kinds[i] = nil
		}
		return set.Iter(func(t *ast.Term) error {
			if kind == "annotate" {
				tag, err := annotation(rule, t.Value)
				if err != nil {
					return coded(CodeDocument, fmt.Errorf("evaluating policies: function %s (id %d): %w", d.Name, d.ID, err))
				}
				d.Annotations = append(d.Annotations, tag)
				return nil
			}
			msg, ok := t.Value.(ast.String)
			if !ok {
				return coded(CodeDocument, fmt.Errorf("evaluating policies: function %s (id %d): %s.%s: message %v is not a string", d.Name, d.ID, kind, rule, t))
			}
			r := Reason{Rule: rule, Message: string(msg), Module: module}
			if kind == "keep" {
				d.Kept = append(d.Kept, r)
				return nil
			}
			d.Reasons = append(d.Reasons, r)
			a.kinds[i] = append(a.kinds[i], kind)
			return nil
		})
	})
}

// deny records one deny rule's entries as violations. Like rule, it
// leaves documents of the wrong shape to the problems decision.rego
// reports.
func (a *assembly) deny(rule string, v ast.Value) error {
	module := a.origins["deny."+rule]
	return a.eachOfBatch(v, func(i int, set ast.Set) error {
		d := &a.b.out[i]
		return set.Iter(func(t *ast.Term) error {
			msg, ok := t.Value.(ast.String)
			if !ok {
				return coded(CodeDocument, fmt.Errorf("evaluating policies: function %s (id %d): deny.%s: message %v is not a string", d.Name, d.ID, rule, t))
			}
			a.report.violations = append(a.report.violations,
				Violation{ID: d.ID, Name: d.Name, Rule: rule, Module: module, Message: string(msg)})
			return nil
		})
	})
}

// order sorts a decision's lists: pahole's reasons by precedence, then
// exclude before skip reasons, each by rule and message; keep reasons and
// annotations by rule and value. It sets Final and drops the annotations
// of a function that stays out. kinds[j] is the kind of d.Reasons[j].
func (a *assembly) order(d *Decision, kinds []string) {
	type entry struct {
		kind string
		r    Reason
	}
	entries := make([]entry, len(d.Reasons))
	for j, r := range d.Reasons {
		entries[j] = entry{kinds[j], r}
	}
	group := func(e entry) (int, int) {
		if rank, ok := a.rank[e.r.Rule]; ok && e.kind == "skip" {
			return 0, rank
		}
		if e.kind == "exclude" {
			return 1, 0
		}
		return 2, 0
	}
	slices.SortFunc(entries, func(x, y entry) int {
		gx, rx := group(x)
		gy, ry := group(y)
		return cmp.Or(cmp.Compare(gx, gy), cmp.Compare(rx, ry), compareReasons(x.r, y.r))
	})
	for j, e := range entries {
		d.Reasons[j], kinds[j] = e.r, e.kind
	}
	if len(entries) > 0 {
		if _, ok := a.rank[entries[0].r.Rule]; ok && entries[0].kind == "skip" {
			d.Final = entries[0].r.Message
		}
	}
	slices.SortFunc(d.Kept, compareReasons)
	if !d.Include {
		d.Annotations = nil
	}
	slices.SortFunc(d.Annotations, func(x, y Annotation) int {
		return cmp.Or(cmp.Compare(x.Rule, y.Rule), cmp.Compare(x.Value, y.Value), cmp.Compare(x.Component, y.Component))
	})
}

func compareReasons(x, y Reason) int {
	return cmp.Or(cmp.Compare(x.Rule, y.Rule), cmp.Compare(x.Message, y.Message))
}

// annotation reads a tag: a string, or {"value": string, "component":
// int >= -1}.
func annotation(rule string, v ast.Value) (Annotation, error) {
	a := Annotation{Component: -1, Rule: rule}
	switch tag := v.(type) {
	case ast.String:
		a.Value = string(tag)
	case ast.Object:
		s, ok := field(tag, "value").(ast.String)
		if !ok {
			return a, fmt.Errorf("annotate.%s: tag %v has no string \"value\"", rule, tag)
		}
		a.Value = string(s)
		if c := field(tag, "component"); c != nil {
			n, ok := intValue(c)
			if !ok || n < -1 {
				return a, fmt.Errorf("annotate.%s: tag %v: \"component\" must be an integer >= -1", rule, tag)
			}
			a.Component = n
		}
	default:
		return a, fmt.Errorf("annotate.%s: tag %v must be a string or {\"value\": string, \"component\": int}", rule, v)
	}
	switch {
	case a.Value == "":
		return a, fmt.Errorf("annotate.%s: tag %v has an empty value (the kernel refuses an empty decl tag)", rule, v)
	case strings.IndexByte(a.Value, 0) >= 0:
		return a, fmt.Errorf("annotate.%s: tag %v holds a NUL byte", rule, v)
	case a.Component > maxComponent:
		return a, fmt.Errorf("annotate.%s: tag %v: \"component\" %d is past any parameter (at most %d)", rule, v, a.Component, maxComponent)
	}
	return a, nil
}

// maxComponent is the largest parameter index a FUNC_PROTO can have.
const maxComponent = 0xfffe
