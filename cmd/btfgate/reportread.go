package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/internal/inputs"
)

// readReportResult reads a decision report (encode --report) back into the
// functions, variables and decisions of a result, without instances. An error names
// the file and line.
func readReportResult(path string) (*encode.Result, error) {
	data, err := inputs.ReadFile(path, inputs.DataCap, "report")
	if err != nil {
		return nil, err
	}
	res := &encode.Result{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if lineKind(b) == varKind {
			if err := readVarReportLine(res, b); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			continue
		}
		var l reportLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a report line: %v", path, line, jsonWords(err))
		}
		if l.Facts == nil || l.Name == "" || (l.Decision != "include" && l.Decision != "exclude") {
			return nil, fmt.Errorf("%s:%d: not a report line: it needs \"name\", \"decision\" (include or exclude) and \"facts\"", path, line)
		}
		d := engine.Decision{ID: l.ID, Name: l.Name, Include: l.Decision == "include", Final: l.Final,
			Reasons: engineReasons(l.Reasons), Kept: engineReasons(l.Kept), TrueSignature: engineReasons(l.TrueSig)}
		for _, a := range l.Annotations {
			d.Annotations = append(d.Annotations, engine.Annotation{Value: a.Value, Component: a.Component, Rule: a.Rule})
			if a.Dropped != "" {
				res.AnnotationsDropped = a.Dropped
			}
		}
		res.Functions = append(res.Functions, *l.Facts)
		res.Decisions = append(res.Decisions, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(res.Functions) == 0 {
		return nil, fmt.Errorf("%s: the report has no function (write one with encode --report)", path)
	}
	return res, nil
}

func engineReasons(rs []reasonJSON) []engine.Reason {
	var out []engine.Reason
	for _, r := range rs {
		out = append(out, engine.Reason{Rule: r.Rule, Message: r.Message, Module: r.Module})
	}
	return out
}

// jsonWords rewords encoding/json's errors for people.
func jsonWords(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("field %q holds a JSON %s where a %s belongs", te.Field, te.Value, te.Type.Kind())
	case errors.As(err, &se):
		return fmt.Sprintf("JSON syntax error at byte %d: %v", se.Offset, se.Error())
	}
	return err.Error()
}

// lineKind is a report line's "kind": "" for a function, varKind for a
// variable.
func lineKind(b []byte) string {
	var k struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(b, &k) != nil {
		return ""
	}
	return k.Kind
}
