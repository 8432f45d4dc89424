package engine

import (
	"encoding/json"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

// everyField keeps every field of every subject type.
func everyField(string) bool { return true }

// InputDocument is the input document of one batch holding all of fns,
// with every field built: what a policy that reads every fact sees, as
// JSON (`btfgate facts --opa-input`, for `opa eval -i`).
func InputDocument(set features.Set, fns []facts.Function) ([]byte, error) {
	b, err := newInputBuilder(everyField)
	if err != nil {
		return nil, err
	}
	v, err := ast.JSON(b.input(featuresTerm(set), fns, nil, newBatchTerms()))
	if err != nil {
		return nil, coded(CodeInternal, fmt.Errorf("input document: %w", err))
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, coded(CodeInternal, fmt.Errorf("input document: %w", err))
	}
	return append(out, '\n'), nil
}
