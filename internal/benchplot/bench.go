package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Bench is the JSON scripts/bench.sh writes.
type Bench struct {
	Date          string        `json:"date"`
	Runs          int           `json:"runs"`
	CPUs          int           `json:"cpus"`
	CPUModel      string        `json:"cpu_model"`
	MemTotalMiB   int           `json:"mem_total_mib"`
	Linux         string        `json:"linux"`
	GoVersion     string        `json:"go_version"`
	Commit        string        `json:"btfgate_commit"`
	PaholeVersion string        `json:"pahole_version"`
	Kernel        string        `json:"kernel"`
	Module        string        `json:"module"`
	LoadStart     string        `json:"load_average_start"`
	LoadEnd       string        `json:"load_average_end"`
	Rows          []Row         `json:"rows"`
	Determinism   []Determinism `json:"determinism"`
	Traces        []Trace       `json:"rss_traces"`
}

// Row is one command's medians.
type Row struct {
	Name      string    `json:"name"`
	Target    string    `json:"target"` // vmlinux, ext4.ko
	Tool      string    `json:"tool"`   // btfgate, pahole
	Jobs      int       `json:"jobs"`
	Supported bool      `json:"supported"`
	Runs      int       `json:"runs"`
	Wall      float64   `json:"wall_s"`
	WallMin   float64   `json:"wall_min_s"` // the fastest run
	CPU       float64   `json:"cpu_s"`
	RSS       float64   `json:"rss_mib"`
	Load      float64   `json:"load1"`
	Ratio     *Ratios   `json:"ratio_to_pahole"`
	Phases    []Phase   `json:"phases"`
	WallRuns  []float64 `json:"wall_runs"`
	CPURuns   []float64 `json:"cpu_runs"`
}

// Ratios are btfgate's medians over pahole's on the same input.
type Ratios struct {
	Wall    float64 `json:"wall"`
	WallMin float64 `json:"wall_min"` // fastest over fastest
	CPU     float64 `json:"cpu"`
	RSS     float64 `json:"rss"`
}

// Phase is one phase's median (rows) or measured (traces) wall time.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Determinism says whether the -j1, -j2, -j8 outputs were identical.
type Determinism struct {
	Target    string `json:"target"`
	Jobs      []int  `json:"jobs"`
	Identical bool   `json:"identical"`
}

// Trace is one run with its RSS sampled.
type Trace struct {
	Name        string       `json:"name"`
	Tool        string       `json:"tool"`
	Interval    float64      `json:"interval_s"`
	Wall        float64      `json:"wall_s"`
	EncodeTotal *float64     `json:"encode_total_s"`
	Phases      []Phase      `json:"phases"`
	Samples     [][2]float64 `json:"samples"` // seconds since start, MiB
}

// Window is a phase's place on a trace's timeline.
type Window struct {
	Name       string
	Start, End float64
	PeakMiB    float64
	Sampled    bool // false: no sample fell inside; PeakMiB is interpolated
}

// windows places a btfgate trace's phases on its timeline. Encode ran for
// EncodeTotal seconds just before the process ended (only the exit
// follows), so it started at Wall - EncodeTotal; before that came the
// process start, policy compilation and loading the base.
func (t *Trace) windows() []Window {
	if t.EncodeTotal == nil || len(t.Phases) == 0 {
		return nil
	}
	start := math.Max(0, t.Wall-*t.EncodeTotal)
	out := []Window{{Name: "startup", Start: 0, End: start}}
	at := start
	for _, p := range t.Phases {
		out = append(out, Window{Name: p.Name, Start: at, End: at + p.Seconds})
		at += p.Seconds
	}
	out = append(out, Window{Name: "exit", Start: at, End: math.Max(at, t.Wall)})
	for i := range out {
		w := &out[i]
		for _, s := range t.Samples {
			if s[0] >= w.Start && s[0] <= w.End {
				w.PeakMiB = math.Max(w.PeakMiB, s[1])
				w.Sampled = true
			}
		}
		if !w.Sampled {
			w.PeakMiB = t.rssAt((w.Start + w.End) / 2)
		}
	}
	return out
}

// rssAt interpolates the RSS at time x between the nearest samples.
func (t *Trace) rssAt(x float64) float64 {
	s := t.Samples
	if len(s) == 0 {
		return 0
	}
	if x <= s[0][0] {
		return s[0][1]
	}
	for i := 1; i < len(s); i++ {
		if x <= s[i][0] {
			a, b := s[i-1], s[i]
			if b[0] == a[0] {
				return b[1]
			}
			return a[1] + (b[1]-a[1])*(x-a[0])/(b[0]-a[0])
		}
	}
	return s[len(s)-1][1]
}

func (t *Trace) peak() float64 {
	m := 0.0
	for _, s := range t.Samples {
		m = math.Max(m, s[1])
	}
	return m
}

// targets lists the inputs in the order their rows appear.
func (b *Bench) targets() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range b.Rows {
		if !seen[r.Target] {
			seen[r.Target] = true
			out = append(out, r.Target)
		}
	}
	return out
}

func (b *Bench) rowsFor(target string) []Row {
	var out []Row
	for _, r := range b.Rows {
		if r.Target == target && r.Supported {
			out = append(out, r)
		}
	}
	return out
}

// pahole returns pahole's row for target.
func (b *Bench) pahole(target string) *Row {
	for i := range b.Rows {
		if r := &b.Rows[i]; r.Target == target && r.Tool == "pahole" && r.Supported {
			return r
		}
	}
	return nil
}

// phaseNames lists every phase name in order of first appearance.
func (b *Bench) phaseNames() []string {
	var out []string
	seen := map[string]bool{}
	add := func(ps []Phase) {
		for _, p := range ps {
			if !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p.Name)
			}
		}
	}
	for _, r := range b.Rows {
		add(r.Phases)
	}
	for _, t := range b.Traces {
		add(t.Phases)
	}
	return out
}

func writeMarkdown(w io.Writer, b *Bench) {
	fmt.Fprintf(w, "| command | runs | wall s | fastest s | CPU s | peak RSS MiB | load | wall × pahole | fastest × pahole | CPU × pahole | RSS × pahole |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range b.Rows {
		if !r.Supported {
			fmt.Fprintf(w, "| %s | – | n/a | n/a | n/a | n/a | | | | | |\n", r.Name)
			continue
		}
		rw, rm, rc, rr := "", "", "", ""
		if r.Ratio != nil {
			rw, rm = fmt.Sprintf("%.2f", r.Ratio.Wall), fmt.Sprintf("%.2f", r.Ratio.WallMin)
			rc, rr = fmt.Sprintf("%.2f", r.Ratio.CPU), fmt.Sprintf("%.2f", r.Ratio.RSS)
		}
		fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.2f | %.0f | %.1f | %s | %s | %s | %s |\n",
			r.Name, r.Runs, r.Wall, r.WallMin, r.CPU, r.RSS, r.Load, rw, rm, rc, rr)
	}
	names := b.phaseNames()
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| phase (median s) |")
	var with []Row
	for _, r := range b.Rows {
		if len(r.Phases) > 0 {
			with = append(with, r)
			fmt.Fprintf(w, " %s |", r.Name)
		}
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("--:|", len(with)))
	for _, n := range names {
		fmt.Fprintf(w, "| %s |", n)
		for _, r := range with {
			v := "–"
			for _, p := range r.Phases {
				if p.Name == n {
					v = fmt.Sprintf("%.3f", p.Seconds)
				}
			}
			fmt.Fprintf(w, " %s |", v)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// writePhaseRSS prints the peak RSS within each phase of the traced
// btfgate runs, and each traced run's peak.
func writePhaseRSS(w io.Writer, b *Bench) {
	if len(b.Traces) == 0 {
		return
	}
	var ws [][]Window
	var with []Trace
	for _, t := range b.Traces {
		if win := t.windows(); win != nil {
			ws = append(ws, win)
			with = append(with, t)
		}
	}
	if len(with) > 0 {
		fmt.Fprintf(w, "| peak RSS MiB in phase (traced run) |")
		for _, t := range with {
			fmt.Fprintf(w, " %s |", t.Name)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("--:|", len(with)))
		for i := range ws[0] {
			fmt.Fprintf(w, "| %s |", ws[0][i].Name)
			for _, win := range ws {
				v := "–"
				if i < len(win) && win[i].Name == ws[0][i].Name {
					v = fmt.Sprintf("%.0f", win[i].PeakMiB)
					if !win[i].Sampled {
						v = "≈" + v
					}
				}
				fmt.Fprintf(w, " %s |", v)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| traced run | wall s | peak RSS MiB | samples |\n|---|--:|--:|--:|\n")
	for _, t := range b.Traces {
		fmt.Fprintf(w, "| %s | %.2f | %.0f | %d |\n", t.Name, t.Wall, t.peak(), len(t.Samples))
	}
}
