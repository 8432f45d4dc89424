package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/encode"
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
	Bytes       int            `json:"output_bytes"`
	Phases      []phaseJSON    `json:"phases"`
	Total       float64        `json:"total_seconds"`
}

type phaseJSON struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

func newSummary(input, output string, set features.Set, res *encode.Result, size int, total time.Duration) *summary {
	s := &summary{Input: input, Output: output, Features: set.Enabled(), Units: res.Units,
		TypesBefore: res.Before, Types: res.Types.Len(), Kinds: map[string]int{}, Bytes: size, Total: total.Seconds()}
	first := res.Types.FirstID()
	for id := first; id < first+btf.TypeID(res.Types.Len()); id++ {
		s.Kinds[res.Types.Kind(id).String()]++
	}
	for _, p := range res.Phases {
		s.Phases = append(s.Phases, phaseJSON{p.Name, p.Duration.Seconds()})
	}
	return s
}

func (s *summary) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s -> %s: %d types (%d before dedup) from %d compile units, %d bytes\n",
		s.Input, s.Output, s.Types, s.TypesBefore, s.Units, s.Bytes)
	kinds := make([]string, 0, len(s.Kinds))
	for k := range s.Kinds {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if s.Kinds[kinds[i]] != s.Kinds[kinds[j]] {
			return s.Kinds[kinds[i]] > s.Kinds[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	fmt.Fprint(w, "  kinds:")
	for _, k := range kinds {
		fmt.Fprintf(w, " %s %d", k, s.Kinds[k])
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "  time:")
	for _, p := range s.Phases {
		fmt.Fprintf(w, " %s %.3fs", p.Name, p.Seconds)
	}
	fmt.Fprintf(w, " (total %.3fs)\n", s.Total)
}

func (s *summary) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
