package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Violation is one entry of a deny rule: an outcome the policies do not
// allow for a function.
type Violation struct {
	ID   int    // facts.Function.ID
	Name string // facts.Function.Name
	Rule string // the deny rule, e.g. "guard_btf_ids"
	// Module names the file defining the rule ("" if its name is computed).
	Module  string
	Message string
	// Variable: ID and Name are a facts.Variable's (a deny rule of
	// package btfgate.variables).
	Variable bool
}

func (v Violation) String() string {
	rule := v.Rule
	if v.Module != "" {
		rule += " (" + v.Module + ")"
	}
	name := v.Name
	if v.Variable {
		name = "variable " + name
	}
	return rule + ": " + name + ": " + v.Message
}

// ViolationsError is DecideFunctions' error when deny rules named
// functions: every violation, by function id, rule and message.
type ViolationsError struct {
	Violations []Violation
}

// maxViolations is how many violations an error spells out.
const maxViolations = 10

func (e *ViolationsError) Error() string {
	vs := e.Violations
	if len(vs) == 1 {
		return "policy violation: " + vs[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "policy violation: deny rules refuse %d outcome(s)", len(vs))
	for i, v := range vs {
		if i == maxViolations {
			fmt.Fprintf(&b, "\n  ... and %d more", len(vs)-maxViolations)
			break
		}
		b.WriteString("\n  " + v.String())
	}
	return b.String()
}

// violationsError reports the violations of every batch, if any, in one
// error whose text does not depend on how the functions were split.
func violationsError(vs []Violation) error {
	if len(vs) == 0 {
		return nil
	}
	SortViolations(vs)
	return &ViolationsError{Violations: vs}
}

// SortViolations puts vs in the order a ViolationsError lists them: by
// subject id, rule and message, so the error does not depend on batches.
func SortViolations(vs []Violation) {
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
}
