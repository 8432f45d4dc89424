package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/internal/outputs"
)

// reportLine is one line of the decision report: a function group, what
// was decided, every reason, and the facts that decided it.
type reportLine struct {
	// Query and Note are explain's: the name asked for, and how it led to
	// this group (a clone symbol); DeniedBy the deny rules that refused
	// the outcome. A report has none of them.
	Query    string          `json:"query,omitempty"`
	Note     string          `json:"note,omitempty"`
	DeniedBy []violationJSON `json:"denied_by,omitempty"`

	ID       int          `json:"id"`
	Name     string       `json:"name"`
	Decision string       `json:"decision"` // "include" or "exclude"
	Final    string       `json:"pahole_reason,omitempty"`
	Reasons  []reasonJSON `json:"reasons,omitempty"`
	Kept     []reasonJSON `json:"kept_by,omitempty"`
	// TrueSig lists the true_signature rules that selected the group.
	TrueSig     []reasonJSON     `json:"true_signature_by,omitempty"`
	Annotations []annotationJSON `json:"annotations,omitempty"`
	Facts       *facts.Function  `json:"facts"`
	Instances   []facts.Instance `json:"instances,omitempty"`
}

type reasonJSON struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Module  string `json:"module,omitempty"`
}

type violationJSON struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Module  string `json:"module,omitempty"`
}

func violationsJSON(vs []engine.Violation) []violationJSON {
	var out []violationJSON
	for _, v := range vs {
		out = append(out, violationJSON{v.Rule, v.Message, v.Module})
	}
	return out
}

type annotationJSON struct {
	Value     string `json:"value"`
	Component int    `json:"component"`
	Rule      string `json:"rule,omitempty"`
	// Dropped says why the tag is not in the BTF ("the decl_tag feature
	// is off"); absent when it is.
	Dropped string `json:"dropped,omitempty"`
}

func newReportLine(res *encode.Result, i int, instances bool) reportLine {
	d := res.Decisions[i]
	l := reportLine{ID: res.Functions[i].ID, Name: res.Functions[i].Name, Decision: "exclude",
		Final: d.Final, Facts: &res.Functions[i]}
	if d.Include {
		l.Decision = "include"
	}
	l.Reasons = reasons(d.Reasons)
	l.Kept = reasons(d.Kept)
	l.TrueSig = reasons(d.TrueSignature)
	for _, a := range d.Annotations {
		l.Annotations = append(l.Annotations, annotationJSON{a.Value, a.Component, a.Rule, res.AnnotationsDropped})
	}
	if instances && i < len(res.Instances) {
		l.Instances = res.Instances[i]
	}
	return l
}

func reasons(rs []engine.Reason) []reasonJSON {
	var out []reasonJSON
	for _, r := range rs {
		out = append(out, reasonJSON{r.Rule, r.Message, r.Module})
	}
	return out
}

// writeReport stages the NDJSON decision report in outs: a line per
// function group, then a line per variable ("kind": "variable").
func writeReport(outs *outputs.Set, path string, res *encode.Result) error {
	var buf bytes.Buffer
	for i := range res.Functions {
		if err := writeJSONLine(&buf, newReportLine(res, i, false)); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := writeVariableLines(&buf, res); err != nil {
		return err
	}
	return outs.Write(path, buf.Bytes(), 0o644)
}

// writeJSONLine writes v as one line of JSON, with hex strings beside
// its addresses (withHexAddrs).
func writeJSONLine(w io.Writer, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(withHexAddrs(js), '\n'))
	return err
}
