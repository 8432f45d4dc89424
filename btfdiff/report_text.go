package btfdiff

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"
)

// maxTextKey is how much of a key WriteText shows; JSON has all of it.
const maxTextKey = 400

// clip shortens s to maxTextKey bytes (at a UTF-8 boundary), saying how
// much was left out.
func clip(s string) string {
	if len(s) <= maxTextKey {
		return s
	}
	cut := maxTextKey
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:cut], len(s)-cut)
}

// WriteText writes the report for people: the per-kind table, then the
// functions, variables and named types added (+), removed (-) and changed
// (~, with the differing parts), then the other content keys found on one
// side only (anonymous types, decl tags), and a last line "equal" or
// "different". limit caps the entries listed per section; limit <= 0
// lists all.
func (r *Report) WriteText(w io.Writer, limit int) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("A: %s\n", sideLabel(r.A))
	p("B: %s\n", sideLabel(r.B))
	p("\n%-12s %9s %9s %9s %9s %9s\n", "kind", "A", "B", "B-A", "only A", "only B")
	var ta, tb, toa, tob int
	for _, k := range r.Kinds {
		p("%-12s %9d %9d %+9d %9d %9d\n", k.Kind, k.A, k.B, k.B-k.A, k.OnlyA, k.OnlyB)
		ta, tb, toa, tob = ta+k.A, tb+k.B, toa+k.OnlyA, tob+k.OnlyB
	}
	p("%-12s %9d %9d %+9d %9d %9d\n", "total", ta, tb, tb-ta, toa, tob)
	writeChanges(p, "functions", &r.Functions, limit)
	writeChanges(p, "variables", &r.Variables, limit)
	writeChanges(p, "named types", &r.Types, limit)
	writeOther(p, "only in A", "-", r.OnlyA, limit)
	writeOther(p, "only in B", "+", r.OnlyB, limit)
	if r.Equal() {
		p("\nequal\n")
	} else {
		p("\ndifferent\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write text report: %w", err)
	}
	return nil
}

func sideLabel(s Side) string {
	if s.Base != "" {
		return fmt.Sprintf("%s (split on %s, %d types)", s.Name, s.Base, s.Types)
	}
	return fmt.Sprintf("%s (%d types)", s.Name, s.Types)
}

type printer func(format string, args ...any)

// writeChanges lists one group's added, removed and changed entries.
func writeChanges(p printer, what string, c *Changes, limit int) {
	p("\n%s: %d added, %d removed, %d changed\n", what, len(c.Added), len(c.Removed), len(c.Changed))
	list := func(sign string, l []Change, keys func(Change) []string) {
		for i, ch := range l {
			if limit > 0 && i == limit {
				p("  … %d more\n", len(l)-limit)
				return
			}
			for _, k := range keys(ch) {
				p("  %s %s\n", sign, clip(k))
			}
		}
	}
	list("+", c.Added, func(ch Change) []string { return ch.New })
	list("-", c.Removed, func(ch Change) []string { return ch.Old })
	for i, ch := range c.Changed {
		if limit > 0 && i == limit {
			p("  … %d more changed\n", len(c.Changed)-limit)
			break
		}
		p("  ~ %s %s\n", ch.Kind, ch.Name)
		for _, d := range ch.Detail {
			p("      %s\n", clip(d))
		}
	}
}

// writeOther lists the keys that no function, variable or named type
// accounts for.
func writeOther(p printer, what, sign string, diffs []KeyDiff, limit int) {
	var other []KeyDiff
	n := 0
	for _, d := range diffs {
		if d.Name == "" {
			other = append(other, d)
			n += d.Count
		}
	}
	if len(other) == 0 {
		return
	}
	p("\nother types %s (anonymous types, decl tags): %d\n", what, n)
	for i, d := range other {
		if limit > 0 && i == limit {
			p("  … %d more\n", len(other)-limit)
			return
		}
		times := ""
		if d.Count > 1 {
			times = fmt.Sprintf(" (×%d)", d.Count)
		}
		p("  %s %s%s\n", sign, clip(d.Key), times)
	}
}
