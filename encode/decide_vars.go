package encode

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
)

// unitVars is what the unit walks found about variables: the facts of
// every variable with a static address (IDs are indexes) and the DATASEC
// entries of the VARs built for those pahole encodes.
type unitVars struct {
	facts    []facts.Variable
	datasecs []datasecEntry
}

// datasecEntry is a DATASEC entry with a global VAR id (before dedup), and
// the variable's index in unitVars.facts.
type datasecEntry struct {
	section uint32
	fact    int
	info    btf.VarSecinfo
}

// varOutcome is what the variable policies leave of the VARs built.
type varOutcome struct {
	datasecs []datasecEntry // the entries of the variables that go in
	dropped  int            // VARs built that the policies leave out
	drop     []bool         // for each VAR built, in id order: it goes
	tags     []varTag       // decl tags policies add to VARs that go in
}

// varTag is a decl tag on a VAR (global id before dedup).
type varTag struct {
	value string
	varID btf.TypeID
}

// decideVariables takes vd's decisions on uv.facts, fills
// res.VarDecisions, and keeps the DATASEC entries of the variables that go
// in. A VAR exists only for a variable pahole encodes, so a decision that
// puts in another one (a keep rule over pahole's reason) is an error
// naming it.
func decideVariables(vd *varDecider, uv unitVars, opts Options, res *Result) (varOutcome, error) {
	var out varOutcome
	ds, err := vd.finish(uv.facts)
	if err == nil && len(ds) != len(uv.facts) {
		err = fmt.Errorf("variable policies: %d decisions for %d variables", len(ds), len(uv.facts))
	}
	res.VarDecisions = ds // with deny rules' refusal, the decisions stand
	if err != nil {
		return out, err
	}
	built := make([]bool, len(uv.facts))
	for _, e := range uv.datasecs {
		built[e.fact] = true
	}
	var unbuilt []string
	for i, d := range ds {
		if d.Include && !built[i] {
			v := &uv.facts[i]
			unbuilt = append(unbuilt, fmt.Sprintf("%s (CU %d, DIE %#x: %s)", v.Name, v.CU, v.DIE, v.PaholeSkip))
		}
	}
	if len(unbuilt) > 0 {
		const maxNamed = 10
		more := ""
		if len(unbuilt) > maxNamed {
			more = fmt.Sprintf(" and %d more", len(unbuilt)-maxNamed)
			unbuilt = unbuilt[:maxNamed]
		}
		return out, fmt.Errorf("variable policies put in %d variable(s) that pahole's rules leave out, "+
			"and btfgate builds VARs only for those pahole encodes (keep rules can override your own skip rules, not pahole's): %s%s",
			len(unbuilt), strings.Join(unbuilt, "; "), more)
	}
	// Every VAR built has one DATASEC entry; in VAR id order they are
	// the VARs in type order.
	ids := make([]btf.TypeID, len(uv.datasecs))
	for i, e := range uv.datasecs {
		ids[i] = e.info.Type
	}
	slices.Sort(ids)
	dropped := 0
	for _, e := range uv.datasecs {
		d := &ds[e.fact]
		if !d.Include {
			if out.drop == nil {
				out.drop = make([]bool, len(ids))
			}
			rank, _ := slices.BinarySearch(ids, e.info.Type)
			out.drop[rank] = true
			out.dropped++
			continue
		}
		out.datasecs = append(out.datasecs, e)
		for _, a := range d.Annotations {
			if !opts.Features.DeclTag {
				dropped++
				continue
			}
			out.tags = append(out.tags, varTag{a.Value, e.info.Type})
		}
	}
	if dropped > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%s: %d decl tag(s) that policies add to variables are left out of the BTF", DeclTagOff, dropped))
		res.AnnotationsDropped = DeclTagOff
	}
	return out, nil
}

// addVarTags appends the policies' decl tags on VARs.
func addVarTags(types *btf.Types, tags []varTag) {
	for _, t := range tags {
		types.AddDeclTag(types.Strings.Add(t.value), t.varID, -1)
	}
}

// refusal is err's *engine.ViolationsError, nil if it has none.
func refusal(err error) *engine.ViolationsError {
	var v *engine.ViolationsError
	if errors.As(err, &v) {
		return v
	}
	return nil
}
