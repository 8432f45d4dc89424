// Command benchplot draws what scripts/bench.sh measured as one SVG: per
// input, each command's median wall time split into btfgate's phases, its
// CPU time and its peak RSS, against pahole and the targets (goalFor:
// a kernel at most 0.25x pahole's wall and 0.5x its RSS, a module 0.3x and
// 1.0x); then the RSS timelines of the traced
// runs with btfgate's phases marked. It prints the peak RSS of each phase
// of the traced runs as a Markdown table on stdout.
//
//	go run ./internal/benchplot [-markdown] BENCH.json OUT.svg
//
// -markdown also prints the medians table and the phase medians as
// Markdown, for docs/performance.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	md := flag.Bool("markdown", false, "also print the medians and phase tables as Markdown")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchplot [-markdown] BENCH.json OUT.svg")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *md, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

func run(in, out string, md bool, stdout io.Writer) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var b Bench
	if err := json.Unmarshal(data, &b); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if len(b.Rows) == 0 {
		return fmt.Errorf("%s: no rows", in)
	}
	svg := render(&b)
	if err := os.WriteFile(out, []byte(svg), 0o644); err != nil {
		return err
	}
	if md {
		writeMarkdown(stdout, &b)
	}
	writePhaseRSS(stdout, &b)
	return nil
}
