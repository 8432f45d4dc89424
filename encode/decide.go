package encode

import (
	"context"
	"fmt"
	"strings"

	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/loader"
)

// decideFunctions runs pol over the groups whose facts are in
// Result.Functions: the true_signature selection first (recomputing the
// selected groups), then the decisions. It fills Result.Functions (params
// and prototypes where a policy can read them), Result.Instances (with
// Detail), Result.Decisions and Result.Warnings, and leaves which groups
// go in and the decl tags policies add to each in e.include and e.extra.
func (e *encoder) decideFunctions(pol *engine.Engine) error {
	groups, sectionName, opts, res := e.groups, e.in.SectionName, e.opts, e.res
	ctx := context.Background()
	detail := opts.Detail
	params := !detail && pol.Mentions("params") // with detail, Facts added them
	protos := detail || pol.Mentions("prototype")
	// enrich adds to fns, facts of groups, what Facts leaves out and some
	// policy reads.
	enrich := func(fns []facts.Function) {
		if params {
			groups.AddParams(fns)
		}
		if protos {
			groups.AddPrototypes(fns)
		}
	}
	enrich(res.Functions)

	// One session: each function's input is built once for both queries,
	// and again only for the groups the selection changed.
	sess := pol.NewSession(res.Functions, opts.Jobs)
	var selected [][]engine.Reason
	if !opts.Features.TrueSignature && pol.SelectsTrueSignature() {
		var err error
		if selected, err = sess.SelectTrueSignature(ctx); err != nil {
			return err
		}
		var sel []int
		for gi := range selected {
			if selected[gi] != nil {
				sel = append(sel, gi)
			}
		}
		if err := groups.SelectTrueSignatures(sel); err != nil {
			return err
		}
		for _, gi := range sel {
			res.Functions[gi] = groups.Fact(gi, sectionName, detail)
			enrich(res.Functions[gi : gi+1])
			sess.Changed(gi)
		}
	}
	if detail {
		res.Instances = groups.Instances()
	}

	var err error
	res.Decisions, err = sess.DecideFunctions(ctx)
	if err != nil {
		return err
	}
	res.Unmatched = pol.Unmatched(res.Functions)
	for gi := range selected {
		res.Decisions[gi].TrueSignature = selected[gi]
	}

	include := make([]bool, groups.Len())
	extra := make([][]loader.FuncAnnot, groups.Len())
	dropped, droppedFns := 0, 0
	byRule := map[string]int{}
	var rules []string
	for i, d := range res.Decisions {
		include[i] = d.Include
		if len(d.Annotations) > 0 && !opts.Features.DeclTag {
			dropped += len(d.Annotations)
			droppedFns++
			for _, a := range d.Annotations {
				if byRule[a.Rule] == 0 {
					rules = append(rules, a.Rule)
				}
				byRule[a.Rule]++
			}
			continue
		}
		for _, a := range d.Annotations {
			extra[i] = append(extra[i], loader.FuncAnnot{Value: a.Value, Component: int32(a.Component)})
		}
	}
	if dropped > 0 {
		res.AnnotationsDropped = DeclTagOff
		parts := make([]string, len(rules))
		for i, r := range rules {
			parts[i] = fmt.Sprintf("annotate.%s %d", r, byRule[r])
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%s: %d decl tag(s) that policies add to %d function(s) are left out of the BTF (%s)",
			DeclTagOff, dropped, droppedFns, strings.Join(parts, ", ")))
	}
	e.include, e.extra = include, extra
	return nil
}

// DeclTagOff is Result.AnnotationsDropped when the decl_tag feature is off.
const DeclTagOff = "the decl_tag feature is off"
