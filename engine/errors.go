package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// PolicyError is a problem found in a policy module, where it is.
type PolicyError struct {
	File    string // module name, as given in Module.Name
	Line    int    // 1-based; 0 when OPA gives no position
	Col     int    // 1-based; 0 when unknown
	Message string
}

func (e PolicyError) Error() string {
	switch {
	case e.File == "":
		return e.Message
	case e.Line == 0:
		return e.File + ": " + e.Message
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
}

// PolicyErrors lists every problem one compile or evaluation reported.
type PolicyErrors []PolicyError

func (es PolicyErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// policyErrors rewrites OPA's parse, compile and evaluation errors as
// PolicyErrors (file:line:col: message), saying why a forbidden builtin is
// undefined. Other errors come back unchanged.
func policyErrors(err error, forbidden map[string]bool) error {
	var out PolicyErrors
	if astErrs, ok := errors.AsType[ast.Errors](err); ok {
		for _, e := range astErrs {
			out = append(out, fromLocation(e.Location, astMessage(e, forbidden)))
		}
		return out
	}
	if e, ok := errors.AsType[*ast.Error](err); ok {
		return PolicyErrors{fromLocation(e.Location, astMessage(e, forbidden))}
	}
	if e, ok := errors.AsType[*topdown.Error](err); ok {
		return PolicyErrors{fromLocation(e.Location, e.Message+" ("+e.Code+")")}
	}
	return err
}

func fromLocation(loc *ast.Location, msg string) PolicyError {
	if loc == nil {
		return PolicyError{Message: msg}
	}
	return PolicyError{File: loc.File, Line: loc.Row, Col: loc.Col, Message: msg}
}

func astMessage(e *ast.Error, forbidden map[string]bool) string {
	if name, ok := strings.CutPrefix(e.Message, "undefined function "); ok && isForbidden(name, forbidden) {
		return fmt.Sprintf("%s is not allowed: btfgate policies must be deterministic and offline (no network, clock, randomness or runtime builtins)", name)
	}
	return e.Message + " (" + e.Code + ")"
}

func isForbidden(name string, forbidden map[string]bool) bool {
	return forbidden[name] || hasForbiddenPrefix(name)
}
