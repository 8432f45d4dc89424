package btfdiff

import (
	"encoding/json"
	"fmt"
	"io"
)

// jsonReport is a Report with its verdict, as WriteJSON writes it.
type jsonReport struct {
	Equal bool `json:"equal"`
	*Report
}

// WriteJSON writes the whole report as one JSON object: "equal", "a", "b",
// "kinds", "functions", "variables", "types", "only_a" and "only_b", with
// every entry (no limit). Empty lists are written as [].
func (r *Report) WriteJSON(w io.Writer) error {
	out := *r
	for _, g := range []*Changes{&out.Functions, &out.Variables, &out.Types} {
		g.Added, g.Removed, g.Changed = nonNil(g.Added), nonNil(g.Removed), nonNil(g.Changed)
	}
	out.Kinds, out.OnlyA, out.OnlyB = nonNil(out.Kinds), nonNil(out.OnlyA), nonNil(out.OnlyB)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonReport{r.Equal(), &out}); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
