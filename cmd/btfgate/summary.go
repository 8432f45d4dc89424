package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
)

// summary is what encode reports when it is done.
type summary struct {
	Input       string         `json:"input"`
	Output      string         `json:"output"`
	Features    []string       `json:"features"`
	Units       int            `json:"compile_units"`
	TypesBefore int            `json:"types_before_dedup"`
	Types       int            `json:"types"`
	Kinds       map[string]int `json:"kinds"`
	Functions   funcCounts     `json:"functions"`
	Variables   varCounts      `json:"variables"`
	Bytes       int            `json:"output_bytes"`
	Phases      []phaseJSON    `json:"phases"`
	// Threads and Walkers: the CPUs the encode ran on and the workers
	// that walked its units (encode.Result.Threads, Walkers).
	Threads int `json:"threads"`
	Walkers int `json:"walkers"`
	// Overlapped is work on goroutines of its own beside the phases (busy
	// time, not in the phases' times).
	Overlapped     []phaseJSON `json:"overlapped,omitempty"`
	DedupRestarted string      `json:"dedup_restarted,omitempty"`
	KnownDropped   int         `json:"known_dropped"`
	KnownRedone    string      `json:"known_redone,omitempty"`
	// FoldedTypes and FoldedBytes: the spliced types folded into their
	// canonical ones once deduplicated, and the bytes of their words given
	// back (kernel-sized inputs; encode.Result.FoldedTypes).
	FoldedTypes int `json:"folded_types,omitempty"`
	FoldedBytes int `json:"folded_bytes,omitempty"`
	// BaseCached: the base BTF came prepared from the base cache.
	BaseCached bool     `json:"base_cached,omitempty"`
	Total      float64  `json:"total_seconds"`
	Warnings   []string `json:"warnings,omitempty"`
}

// funcCounts counts the function groups the policies decided on.
type funcCounts struct {
	Kept    int `json:"kept"`
	Skipped int `json:"skipped"`
	// SkippedBy counts skipped groups by reason: the one pahole would log
	// (Decision.Final), else the first rule's message.
	SkippedBy map[string]int `json:"skipped_by_reason"`
	// KeptBy counts kept groups that some skip rule named, by the first
	// keep rule that overrode it.
	KeptBy map[string]int `json:"kept_by_rule"`
}

// varCounts counts the VARs in the output, by DATASEC, and the DATASEC
// entries left out because they overlap an earlier one.
type varCounts struct {
	Total     int            `json:"total"`
	BySection map[string]int `json:"by_section"`
	Dropped   int            `json:"dropped_overlapping,omitempty"`
}

type phaseJSON struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

func newSummary(input, output string, set features.Set, res *encode.Result, size int, total time.Duration) *summary {
	s := &summary{Input: input, Output: output, Features: set.Enabled(), Units: res.Units,
		TypesBefore: res.Before, Types: res.Types.Len(), Kinds: map[string]int{}, Bytes: size, Total: total.Seconds(),
		Functions: countDecisions(res.Decisions), Threads: res.Threads, Walkers: res.Walkers,
		Variables: varCounts{BySection: map[string]int{}, Dropped: res.DroppedEntries}, Warnings: res.Warnings, BaseCached: res.BaseCached}
	if res.BaseCacheError != nil {
		s.Warnings = append(slices.Clip(s.Warnings), res.BaseCacheError.Error())
	}
	first := res.Types.FirstID()
	for id := first; id < first+btf.TypeID(res.Types.Len()); id++ {
		k := res.Types.Kind(id)
		s.Kinds[k.String()]++
		if k == btf.KindDatasec {
			n := res.Types.Vlen(id)
			s.Variables.BySection[res.Types.Name(id)] += n
			s.Variables.Total += n
		}
	}
	for _, p := range res.Phases {
		s.Phases = append(s.Phases, phaseJSON{p.Name, p.Duration.Seconds()})
	}
	for _, p := range res.Overlapped {
		s.Overlapped = append(s.Overlapped, phaseJSON{p.Name, p.Duration.Seconds()})
	}
	s.DedupRestarted = res.DedupRestarted
	s.KnownDropped, s.KnownRedone = res.Known, res.KnownRedone
	s.FoldedTypes, s.FoldedBytes = res.FoldedTypes, res.Folded
	return s
}

// countDecisions counts kept and skipped function groups by reason.
func countDecisions(ds []engine.Decision) funcCounts {
	c := funcCounts{SkippedBy: map[string]int{}, KeptBy: map[string]int{}}
	for i := range ds {
		d := &ds[i]
		if d.Include {
			c.Kept++
			if len(d.Reasons) > 0 && len(d.Kept) > 0 {
				c.KeptBy[d.Kept[0].Rule]++
			}
			continue
		}
		c.Skipped++
		reason := d.Final
		if reason == "" && len(d.Reasons) > 0 {
			reason = d.Reasons[0].Message
		}
		if reason == "" {
			reason = "(no reason given)"
		}
		c.SkippedBy[reason]++
	}
	return c
}

// byCount lists m as "name count" pairs, largest count first, then by name.
func byCount(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func (s *summary) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s -> %s: %d types (%d before dedup) from %d compile units, %d bytes\n",
		s.Input, s.Output, s.Types, s.TypesBefore, s.Units, s.Bytes)
	kinds := make([]string, 0, len(s.Kinds))
	for k := range s.Kinds {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Or(cmp.Compare(s.Kinds[b], s.Kinds[a]), cmp.Compare(a, b)) })
	fmt.Fprint(w, "  kinds:")
	for _, k := range kinds {
		fmt.Fprintf(w, " %s %d", k, s.Kinds[k])
	}
	fmt.Fprintln(w)
	f := &s.Functions
	fmt.Fprintf(w, "  functions: %d kept, %d skipped", f.Kept, f.Skipped)
	if f.Skipped > 0 {
		fmt.Fprintf(w, " (%s)", byCount(f.SkippedBy))
	}
	if len(f.KeptBy) > 0 {
		fmt.Fprintf(w, "; kept over a skip reason: %s", byCount(f.KeptBy))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  variables: %d", s.Variables.Total)
	if len(s.Variables.BySection) > 0 {
		fmt.Fprintf(w, " (%s)", byCount(s.Variables.BySection))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "  time:")
	for _, p := range s.Phases {
		fmt.Fprintf(w, " %s %.3fs", p.Name, p.Seconds)
	}
	fmt.Fprintf(w, " (total %.3fs)", s.Total)
	for _, p := range s.Overlapped {
		fmt.Fprintf(w, "; %s %.3fs", p.Name, p.Seconds)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  threads: %d, walkers: %d\n", s.Threads, s.Walkers)
	if s.KnownRedone != "" {
		fmt.Fprintf(w, "  encoded twice: the second time keeping every copy of earlier units' types (dropped types reach %s)\n", s.KnownRedone)
	}
	if s.DedupRestarted != "" {
		fmt.Fprintf(w, "  dedup: started over in libbpf's order (%s)\n", s.DedupRestarted)
	}
	if s.BaseCached {
		fmt.Fprintln(w, "  base: prepared, from the base cache")
	}
}

func (s *summary) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
