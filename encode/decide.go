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
	types, groups, elf, sectionName, opts, res := e.all, e.groups, e.elf, e.in.SectionName, e.opts, e.res
	ctx := context.Background()
	detail := opts.Detail
	params := !detail && pol.Mentions("params") // with detail, groupFact added them
	protos := detail || pol.Mentions("prototype")
	// enrich adds to fns, the facts of groups, what groupFact leaves out
	// and some policy reads.
	enrich := func(groups []funcGroup, fns []facts.Function) {
		if params {
			addParams(groups, fns)
		}
		if protos {
			addPrototypes(types, groups, elf, fns)
		}
	}
	enrich(groups, res.Functions)

	// One session: each function's input is built once for both queries,
	// and again only for the groups the selection changed.
	sess := pol.NewSession(res.Functions, opts.Jobs)
	var selected [][]engine.Reason
	if !opts.Features.TrueSignature && pol.SelectsTrueSignature() {
		var err error
		if selected, err = sess.SelectTrueSignature(ctx); err != nil {
			return err
		}
		if err := applyTrueSignatures(groups, selected, elf); err != nil {
			return err
		}
		for gi := range selected {
			if selected[gi] == nil {
				continue
			}
			res.Functions[gi] = groupFact(&groups[gi], gi, elf, sectionName, detail)
			enrich(groups[gi:gi+1], res.Functions[gi:gi+1])
			sess.Changed(gi)
		}
	}
	if detail {
		res.Instances = instanceDetail(types, groups, elf)
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

	include := make([]bool, len(groups))
	extra := make([][]loader.FuncAnnot, len(groups))
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

// applyTrueSignatures turns true signatures on for the groups selected
// names a rule for, as the true_signature feature would for them: the
// group's true-signature state and canonical state are chosen again
// (spec §2.7 steps 4 and 5; optimized_skip no longer applies).
//
// It refuses groups with a state whose signature clang changed
// (DW_CC_nocall): with the feature, the loader's ABI walk of those
// functions and the parameters their states keep differ (spec §2.5, §2.6),
// and the walk ran without it. Only the feature reproduces pahole there.
func applyTrueSignatures(groups []funcGroup, selected [][]engine.Reason, elf *loader.ElfFuncs) error {
	var refused []string
	for gi := range selected {
		if selected[gi] == nil {
			continue
		}
		g := &groups[gi]
		changed := false
		for k := range g.states {
			if g.states[k].flags&loader.FuncSignatureChanged != 0 {
				changed = true
				break
			}
		}
		if changed {
			refused = append(refused, elf.Funcs[g.elf].Name)
			continue
		}
		g.trueSignature = true
		g.choose()
	}
	if len(refused) == 0 {
		return nil
	}
	const maxNamed = 10
	names := refused
	more := ""
	if len(names) > maxNamed {
		names = names[:maxNamed]
		more = fmt.Sprintf(" and %d more", len(refused)-maxNamed)
	}
	return fmt.Errorf("true_signature rules select %d function(s) whose signature clang changed (DW_CC_nocall): "+
		"their parameter locations were analysed without true_signature, so a per-function selection cannot reproduce pahole for them; "+
		"encode with --features=+true_signature, or leave them out of the selection: %s%s",
		len(refused), strings.Join(names, ", "), more)
}
