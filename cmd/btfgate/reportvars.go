package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

// varKind marks a report line about a variable; lines about functions
// have no "kind".
const varKind = "variable"

// varReportLine is one line of the decision report about a variable: what
// the variable policies decided and why, with the variable's facts.
type varReportLine struct {
	Query    string          `json:"query,omitempty"` // explain's: the name asked for
	DeniedBy []violationJSON `json:"denied_by,omitempty"`

	Kind        string           `json:"kind"` // varKind
	ID          int              `json:"id"`
	Name        string           `json:"name"`
	Decision    string           `json:"decision"` // "include" or "exclude"
	Final       string           `json:"pahole_reason,omitempty"`
	Reasons     []reasonJSON     `json:"reasons,omitempty"`
	Kept        []reasonJSON     `json:"kept_by,omitempty"`
	Annotations []annotationJSON `json:"annotations,omitempty"`
	Facts       *facts.Variable  `json:"facts"`
}

func newVarReportLine(res *encode.Result, i int) varReportLine {
	d := res.VarDecisions[i]
	l := varReportLine{Kind: varKind, ID: res.Variables[i].ID, Name: res.Variables[i].Name, Decision: "exclude",
		Final: d.Final, Reasons: reasons(d.Reasons), Kept: reasons(d.Kept), Facts: &res.Variables[i]}
	if d.Include {
		l.Decision = "include"
	}
	for _, a := range d.Annotations {
		l.Annotations = append(l.Annotations, annotationJSON{a.Value, a.Component, a.Rule, res.AnnotationsDropped})
	}
	return l
}

// writeVariableLines writes a report line per variable, after the
// functions' lines.
func writeVariableLines(w io.Writer, res *encode.Result) error {
	for i := range res.Variables {
		if i >= len(res.VarDecisions) {
			break
		}
		if err := writeJSONLine(w, newVarReportLine(res, i)); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}

// readVarReportLine adds a report line about a variable to res.
func readVarReportLine(res *encode.Result, b []byte) error {
	var l varReportLine
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("not a report line: %v", jsonWords(err))
	}
	if l.Facts == nil || l.Name == "" || (l.Decision != "include" && l.Decision != "exclude") {
		return fmt.Errorf("not a variable report line: it needs \"name\", \"decision\" (include or exclude) and \"facts\"")
	}
	d := engine.Decision{ID: l.ID, Name: l.Name, Include: l.Decision == "include", Final: l.Final,
		Reasons: engineReasons(l.Reasons), Kept: engineReasons(l.Kept)}
	for _, a := range l.Annotations {
		d.Annotations = append(d.Annotations, engine.Annotation{Value: a.Value, Component: a.Component, Rule: a.Rule})
	}
	res.Variables = append(res.Variables, *l.Facts)
	res.VarDecisions = append(res.VarDecisions, d)
	return nil
}

// variableIndex finds variables by name (static variables of different
// compile units share names).
func variableIndex(res *encode.Result) map[string][]int {
	idx := map[string][]int{}
	for i := range res.Variables {
		if i < len(res.VarDecisions) {
			idx[res.Variables[i].Name] = append(idx[res.Variables[i].Name], i)
		}
	}
	return idx
}

// explainVariable writes what was decided about variable i and why.
func explainVariable(w io.Writer, res *encode.Result, i int, denied []engine.Violation, asJSON bool, query string) error {
	if asJSON {
		l := newVarReportLine(res, i)
		l.Query, l.DeniedBy = query, violationsJSON(denied)
		return json.NewEncoder(w).Encode(l)
	}
	v := &res.Variables[i]
	d := res.VarDecisions[i]
	verdict := "INCLUDED in BTF (a VAR)"
	if !d.Include {
		verdict = "LEFT OUT of BTF"
	}
	fmt.Fprintf(w, "variable %s: %s\n", v.Name, verdict)
	for _, x := range denied {
		fmt.Fprintf(w, "  REFUSED by deny rule %s: %s\n", ruleAt(x.Rule, x.Module), x.Message)
	}
	if d.Final != "" {
		fmt.Fprintf(w, "  pahole would leave it out: %s\n", d.Final)
	} else {
		fmt.Fprintf(w, "  pahole would encode it\n")
	}
	printRules(w, res, d, "pahole's first", false)
	section := v.Section
	if section == "" {
		section = "(none)"
	}
	fmt.Fprintf(w, "  facts: type %s, size %d, section %s, offset %#x, address %#x, external=%v percpu=%v in_symtab=%v\n",
		v.Type, v.Size, section, v.Offset, v.Addr, v.External, v.Percpu, v.InSymtab)
	fmt.Fprintf(w, "  DWARF: CU %d, DIE %#x\n", v.CU, v.DIE)
	return nil
}

// explainVariables explains the names that are variables and no function
// group, and returns the other names, in order.
func explainVariables(w io.Writer, res *encode.Result, names []string, denied map[int][]engine.Violation, asJSON bool) ([]string, error) {
	vars := variableIndex(res)
	if len(vars) == 0 {
		return names, nil
	}
	fns := map[string]bool{}
	for i := range res.Functions {
		fns[res.Functions[i].Name] = true
	}
	var rest []string
	for _, name := range names {
		if fns[name] || len(vars[name]) == 0 {
			rest = append(rest, name)
			continue
		}
		for _, i := range vars[name] {
			if err := explainVariable(w, res, i, denied[res.Variables[i].ID], asJSON, name); err != nil {
				return nil, err
			}
		}
	}
	return rest, nil
}

// writeVariableFacts writes the facts of every variable: one JSON object a
// line, or with opaInput one document shaped like the variable policies'
// input.
func writeVariableFacts(w io.Writer, res *encode.Result, set features.Set, opaInput bool) error {
	enc := json.NewEncoder(w)
	if !opaInput {
		for i := range res.Variables {
			if err := enc.Encode(&res.Variables[i]); err != nil {
				return err
			}
		}
		return nil
	}
	vars := map[string]any{}
	for i := range res.Variables {
		vars[fmt.Sprint(res.Variables[i].ID)] = &res.Variables[i]
	}
	feats := map[string]bool{}
	for _, f := range features.Describe() {
		feats[f.Name] = false
	}
	for _, n := range set.Enabled() {
		feats[n] = true
	}
	return enc.Encode(map[string]any{"features": feats, "variables": vars})
}
