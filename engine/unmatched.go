package engine

import (
	"fmt"
	"sort"

	"github.com/agnivade/levenshtein"
	"github.com/gobwas/glob"

	"github.com/btfgate/btfgate/facts"
)

// Unmatched is an entry of a data.btfgate.config list (deny, keep,
// true_signature, tags) whose glob matches no function of the input: a
// misspelt name, or a function the kernel renamed, does nothing, and a
// security team's deny list silently stops denying it.
type Unmatched struct {
	Key     string // the list: "deny", "keep", "true_signature", "tags"
	Index   int    // the entry
	Pattern string // its glob
	Suggest string // the closest function name, when one is close
}

func (u Unmatched) String() string {
	s := fmt.Sprintf("data.btfgate.config.%s[%d] %q matches no function", u.Key, u.Index, u.Pattern)
	if u.Suggest != "" {
		s += fmt.Sprintf(" (did you mean %q?)", u.Suggest)
	}
	return s
}

// Unmatched returns the entries of the configuration lists that match
// none of fns' names, in list and entry order. A close name (by edit
// distance, for globs without wildcards) is suggested.
func (e *Engine) Unmatched(fns []facts.Function) []Unmatched {
	if e.data == nil || len(fns) == 0 {
		return nil
	}
	names := make([]string, len(fns))
	for i := range fns {
		names[i] = fns[i].Name
	}
	sort.Strings(names)
	var out []Unmatched
	for _, key := range []string{"deny", "keep", "true_signature", "tags"} {
		list, _ := e.data[key].([]any)
		for i, entry := range list {
			pattern := entryGlob(entry)
			g, err := glob.Compile(pattern)
			if err != nil {
				continue // checkConfig refused it already
			}
			if anyMatch(g, names) {
				continue
			}
			out = append(out, Unmatched{Key: key, Index: i, Pattern: pattern, Suggest: closest(pattern, names)})
		}
	}
	return out
}

// entryGlob is the glob of a list entry: the string, or its "name".
func entryGlob(entry any) string {
	switch e := entry.(type) {
	case string:
		return e
	case map[string]any:
		s, _ := e["name"].(string)
		return s
	}
	return ""
}

func anyMatch(g *glob.Pattern, names []string) bool {
	for _, n := range names {
		if g.Match(n) {
			return true
		}
	}
	return false
}

// closest returns the name nearest to pattern if it is within a third of
// the pattern's length in edits, else "". Patterns with wildcards get no
// suggestion.
func closest(pattern string, names []string) string {
	for _, c := range pattern {
		switch c {
		case '*', '?', '[', '{':
			return ""
		}
	}
	best, bestD := "", len(pattern)/3+1
	for _, n := range names {
		if d := len(n) - len(pattern); d >= bestD || -d >= bestD {
			continue
		}
		if d := levenshtein.ComputeDistance(pattern, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
