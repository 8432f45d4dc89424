package engine

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// conflict is a function that keep rules put in and exclude rules leave
// out.
type conflict struct {
	d        *Decision
	excluded []Reason
}

// maxConflicts is how many conflicts an error spells out.
const maxConflicts = 10

// conflictsError reports the conflicts, if any, in one error naming each
// function and the rules on both sides.
func conflictsError(cs []conflict) error {
	if len(cs) == 0 {
		return nil
	}
	slices.SortFunc(cs, func(a, b conflict) int { return cmp.Compare(a.d.ID, b.d.ID) })
	var b strings.Builder
	fmt.Fprintf(&b, "policy conflict: %d function(s) both kept and excluded", len(cs))
	for i, c := range cs {
		if i == maxConflicts {
			fmt.Fprintf(&b, "\n  ... and %d more", len(cs)-maxConflicts)
			break
		}
		fmt.Fprintf(&b, "\n  %s (id %d): kept by %s; excluded by %s",
			c.d.Name, c.d.ID, ruleList("keep", c.d.Kept), ruleList("exclude", c.excluded))
	}
	return coded(CodeConflict, errors.New(b.String()))
}

// ruleList names each rule once, with its module: "keep.x (x.rego), ...".
func ruleList(kind string, rs []Reason) string {
	var names []string
	for _, r := range rs {
		name := kind + "." + r.Rule
		if r.Module != "" {
			name += " (" + r.Module + ")"
		}
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}
