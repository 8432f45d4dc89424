package brokentest

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The classes of issue 16, as the battery table names them.
var issueClasses = []string{
	"1. an output destroys an input",
	"2. unbounded policy evaluation",
	"3. BTF the kernel refuses",
	"4. memory amplification",
	"5. hangs",
	"6. -J replacing files",
	"7. the sandbox reads the environment",
	"8. leftovers",
	"9. crash on a file truncated while read",
	"10. broken input accepted silently",
	"11. errors without a place",
}

// hostileClass maps TestHostileCLI's classes to issue 16's.
var hostileClass = map[string]int{"output is an input": 1, "unbounded policy": 2, "kernel-refused BTF": 3,
	"amplification": 4, "hang": 5, "-J in place": 6, "environment": 7, "leftovers": 8, "errors without a place": 11}

// classOf is the issue 16 class (1-based) of a case of group: synthetic
// DWARF that loops, passes BTF's 65,535-entry limits or holds no types is
// class 3 (the BTF it would make, the kernel refuses), bad rules files class 11, any
// other broken input class 10.
func classOf(group, name string) int {
	switch {
	case group == "rules":
		return 11
	case group == "synthetic" && (strings.Contains(name, "self") || strings.Contains(name, "cycle") ||
		strings.Contains(name, "itself") || strings.Contains(name, "70000") || strings.Contains(name, "no-types")):
		return 3
	}
	return 10
}

// classCount is one row of the battery table.
type classCount struct{ cases, rejected, accepted int }

// worst is the largest figure of a case relative to its honest work
// (the intact input's encode).
type worst struct {
	name         string
	got, honest  int64
	ratio        float64
	measurements int
}

func (w *worst) note(name string, got, honest int64) {
	if honest <= 0 || got <= 0 {
		return
	}
	w.measurements++
	if r := float64(got) / float64(honest); r > w.ratio {
		w.name, w.got, w.honest, w.ratio = name, got, honest, r
	}
}

// notePeak records a CLI run's measured peak RSS, a case of issue 16's
// class, against the honest work's: the same command on the input the case
// was made from. A run that could not be measured (rss 0) is not counted.
func (s *tally) notePeak(class int, name string, rss, honest int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak.note(name, rss, honest)
	w := s.peaks[class]
	w.note(name, rss, honest)
	s.peaks[class] = w
	if path := os.Getenv("BROKENTEST_RSS_LOG"); path != "" && rss > 0 {
		// Every measurement, for a look at more than the worst.
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%d\t%.3f\t%d\t%d\t%s\n", class, float64(rss)/float64(max(honest, 1)), rss>>10, honest>>10, name)
			f.Close()
		}
	}
}

// noteAlloc records the bytes an in-process encode allocated against the
// honest work's.
func (s *tally) noteAlloc(name string, alloc, honest uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.alloc.note(name, int64(alloc), int64(honest))
}

// mib is n bytes in MiB.
func mib(n int64) float64 { return float64(n) / (1 << 20) }

// batteryDoc is the page the battery table is kept in, between the
// markers.
const (
	batteryDoc   = "../../docs/threat-model.md"
	batteryBegin = "<!-- brokentest battery -->\n"
	batteryEnd   = "<!-- brokentest battery end -->\n"
)

// batteryTable renders the rows per class, and the memory figures: the
// worst peak RSS per class and the worst in-process allocation.
func (s *tally) batteryTable() (table, memory string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString("| class (issue 16) | cases | rejected with an error | accepted, valid BTF |\n|---|---:|---:|---:|\n")
	var tot classCount
	for i, name := range issueClasses {
		c := s.classes[i+1]
		if c.cases == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", name, c.cases, c.rejected, c.accepted)
		tot.cases, tot.rejected, tot.accepted = tot.cases+c.cases, tot.rejected+c.rejected, tot.accepted+c.accepted
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d |\n", tot.cases, tot.rejected, tot.accepted)
	if p := s.peak; p.measurements > 0 {
		memory += "| class (issue 16) | CLI runs measured | worst peak RSS against the honest work | case |\n|---|---:|---:|---|\n"
		for i, name := range issueClasses {
			if w := s.peaks[i+1]; w.measurements > 0 {
				memory += fmt.Sprintf("| %s | %d | %.2f× (%.1f / %.1f MiB) | %s |\n", name, w.measurements, w.ratio, mib(w.got), mib(w.honest), w.name)
			}
		}
		memory += fmt.Sprintf("| all | %d | %.2f× | %s |\n\n", p.measurements, p.ratio, p.name)
	}
	if a := s.alloc; a.measurements > 0 {
		memory += fmt.Sprintf("Worst allocation (bytes allocated by encode.Encode in process) of the %d cases, against the honest work's: %s, %.1f MiB against %.1f MiB (%.2f×).\n",
			a.measurements, a.name, mib(a.got), mib(a.honest), a.ratio)
	}
	return b.String(), memory
}

// checkBatteryDoc compares the battery table in docs/threat-model.md with
// this run's, or writes it there with BTFGATE_UPDATE_DOCS=1. Only a whole
// run counts: not -short, no -run, the corpus at hand. It returns what is
// wrong, "" if nothing.
func checkBatteryDoc() string {
	if testing.Short() {
		return ""
	}
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "" {
		return ""
	}
	s := summary
	s.mu.Lock()
	_, corpusRan := s.cases["corpus ext4"]
	s.mu.Unlock()
	if !corpusRan {
		fmt.Println("brokentest: the battery table in docs/threat-model.md is not checked: the corpus cases did not run")
		return ""
	}
	table, memory := s.batteryTable()
	doc, err := os.ReadFile(batteryDoc)
	if err != nil {
		return err.Error()
	}
	text := string(doc)
	i, j := strings.Index(text, batteryBegin), strings.Index(text, batteryEnd)
	if i < 0 || j < i {
		return fmt.Sprintf("%s has no %q ... %q block", batteryDoc, strings.TrimSpace(batteryBegin), strings.TrimSpace(batteryEnd))
	}
	old := text[i+len(batteryBegin) : j]
	if os.Getenv("BTFGATE_UPDATE_DOCS") == "1" {
		text = text[:i+len(batteryBegin)] + table + "\n" + memory + text[j:]
		if err := os.WriteFile(batteryDoc, []byte(text), 0o644); err != nil {
			return err.Error()
		}
		return ""
	}
	// The counts are compared; the memory figures after them vary from
	// run to run and are only rewritten.
	var rows []string
	for _, line := range strings.SplitAfter(old, "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		rows = append(rows, line)
	}
	if got := strings.Join(rows, ""); got != table {
		return fmt.Sprintf("the battery table in %s is not this run's (BTFGATE_UPDATE_DOCS=1 go test ./internal/brokentest rewrites it):\n%s\nthis run:\n%s",
			batteryDoc, got, table)
	}
	return ""
}
