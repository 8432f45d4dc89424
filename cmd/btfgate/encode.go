package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/btfgate/btfgate/elfedit"
	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/internal/outputs"
)

type encodeFlags struct {
	policyFlags
	output  string
	report  string
	summary string
	// summaryFile, if set, receives the summary instead of stderr.
	summaryFile string
	verbose     bool
	cpuProf     string
	memProf     string
	trace       string
	base        string
	cache       string
	elf         bool
}

func newEncodeCmd() *cobra.Command {
	var fl encodeFlags
	cmd := &cobra.Command{
		Use:   "encode [flags] -o OUT.btf INPUT",
		Short: "Encode the DWARF of INPUT (vmlinux or a module) as raw BTF",
		Long: `Encode the DWARF of INPUT as raw BTF, the way pahole -J does, with the
functions that go in decided by policies (the default ones reproduce pahole).`,
		Example: `  btfgate encode -o vmlinux.btf vmlinux
  btfgate encode --btf_base vmlinux.btf -o ext4.btf ext4.ko
  btfgate encode --rules rules.yaml --report decisions.ndjson --summary=json -o vmlinux.btf vmlinux
  btfgate encode --elf vmlinux            # write .BTF into vmlinux, as pahole -J`,
		Args: oneInput,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEncode(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], &fl)
		},
	}
	f := cmd.Flags()
	fl.register(f)
	f.StringVarP(&fl.output, "output", "o", "", "where to write the raw BTF (or output.btf of the rules file)")
	f.StringVar(&fl.report, "report", "", "write the decision report (NDJSON, one line per function) to this file")
	f.StringVar(&fl.summary, "summary", "text", "summary on stderr: text, json or none")
	f.StringVar(&fl.summaryFile, "summary-file", "", "write the summary (as --summary says) to this file instead of stderr")
	f.BoolVarP(&fl.verbose, "verbose", "v", false, "print pahole-style lines for skipped functions on stdout")
	f.StringVar(&fl.cpuProf, "cpuprofile", "", "write a Go CPU profile to this file")
	f.StringVar(&fl.memProf, "memprofile", "", "write a Go heap profile (every allocation of the run) to this file")
	f.StringVar(&fl.trace, "trace", "", "write a Go execution trace to this file (go tool trace)")
	f.BoolVar(&fl.elf, "elf", false, "write an ELF file: a copy of INPUT at -o (or INPUT itself if -o names it) with .BTF (and .BTF.base with distilled_base) added")
	f.StringVar(&fl.base, "btf_base", "", "encode split BTF on this base (raw BTF, or an ELF file with .BTF such as vmlinux)")
	f.StringVar(&fl.cache, "base-cache", "", "directory where --btf_base bases are kept prepared for the next encodes (default $"+baseCacheEnv+", else ~/.cache/btfgate/base; off: none)")
	return cmd
}

func runEncode(stdout, stderr io.Writer, input string, fl *encodeFlags) error {
	if fl.summary != "text" && fl.summary != "json" && fl.summary != "none" {
		return fmt.Errorf("--summary: want text, json or none, got %q", fl.summary)
	}
	fl.debugOut = stderr
	st, err := fl.resolve()
	if err != nil {
		return err
	}
	output, report := fl.output, fl.report
	if st.rules != nil {
		if output == "" {
			output = st.rules.Output.BTF
		}
		if report == "" {
			report = st.rules.Output.Report
		}
	}
	if output == "" {
		return fmt.Errorf("no output: give -o OUT.btf (or output.btf in the rules file)")
	}
	outs := outputs.New(fl.inputFiles(input, fl.base)...)
	defer outs.Abort() // nothing after Commit
	if st.rules != nil {
		if err := outs.AddInputs(st.rules.InputFiles()...); err != nil {
			return err
		}
	}
	stopSignals := outs.CatchSignals()
	defer stopSignals()
	if fl.elf && sameFile(output, input) {
		err = outs.AddInPlace(output)
	} else {
		err = outs.Add("-o", output)
	}
	if err != nil {
		return err
	}
	for _, o := range [][2]string{{"--report", report}, {"--summary-file", fl.summaryFile}, {"--cpuprofile", fl.cpuProf}, {"--memprofile", fl.memProf}, {"--trace", fl.trace}} {
		if o[1] == "" {
			continue
		}
		if err := outs.Add(o[0], o[1]); err != nil {
			return err
		}
	}
	stopProfiles, err := startProfiles(func(p string) (io.Writer, error) { return outs.Create(p, 0o644) },
		fl.cpuProf, fl.memProf, fl.trace)
	if err != nil {
		return err
	}
	defer stopProfiles()
	confirmThreads(input, othersRunnable)
	start := time.Now()
	opts := encode.Options{Features: st.features, Jobs: fl.jobs, Detail: report != "", Supplement: fl.supplement, MaxInflation: fl.maxInflation}
	opts.BasePath = fl.base // loaded beside the input's opening
	if fl.base != "" {
		opts.BaseCache = baseCache(fl.cache)
	}
	setMemoryLimit(input, fl.jobs)
	opts.Opened = raiseForMerge
	opts.Decoded = decodedRelease(input)
	progress, stopProgress := newProgress(stderr)
	opts.Progress = progress
	res, err := encodeWith(input, st.policy, st.rules, opts)
	stopProgress()
	if err != nil {
		return err
	}
	if err := outs.AddInputs(res.Attached...); err != nil {
		return err
	}
	res.Warnings = append(st.warnings, res.Warnings...)
	if err := fl.checkUnmatched(res, st); err != nil {
		return err
	}
	if fl.allowHiding {
		res.Warnings = append(res.Warnings, guardWarning)
	}
	t0 := time.Now()
	raw, err := marshalBTF(res.Types, res.ByteOrder, st.features.Layout)
	if err != nil {
		return fmt.Errorf("%s: marshal: %w", input, err)
	}
	if report != "" {
		if err := writeReport(outs, report, res); err != nil {
			return err
		}
	}
	if fl.elf {
		if err := writeELF(outs, input, output, res, st.features.DistilledBase, st.features.Layout); err != nil {
			return err
		}
	} else if err := outs.Write(output, raw, 0o644); err != nil {
		return err
	}
	if err := stopProfiles(); err != nil {
		return err
	}
	res.Phases = append(res.Phases, encode.Phase{Name: "write", Duration: time.Since(t0)})
	sum := newSummary(input, output, st.features, res, len(raw), time.Since(start))
	if fl.summaryFile != "" {
		var b bytes.Buffer
		if err := sum.writeAs(&b, fl.summary, res); err != nil {
			return err
		}
		if err := outs.Write(fl.summaryFile, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if err := outs.Commit(); err != nil {
		return err
	}
	if fl.verbose {
		writeVerbose(stdout, res)
	}
	if fl.summaryFile != "" {
		writeWarnings(stderr, res) // the summary went to its file
		return nil
	}
	return sum.writeAs(stderr, fl.summary, res)
}

// writeAs writes the summary as --summary asks: JSON (the warnings are
// in it), text after the warnings, or only the warnings.
func (s *summary) writeAs(w io.Writer, format string, res *encode.Result) error {
	switch format {
	case "json":
		return s.writeJSON(w)
	case "text":
		writeWarnings(w, res)
		s.writeText(w)
	default:
		writeWarnings(w, res)
	}
	return nil
}

// writeWarnings prints what the encode did not do as asked, and a base
// cache that could not be written.
func writeWarnings(w io.Writer, res *encode.Result) {
	for _, m := range res.Warnings {
		fmt.Fprintf(w, "btfgate: warning: %s\n", m)
	}
	if res.BaseCacheError != nil {
		fmt.Fprintf(w, "btfgate: warning: %v\n", res.BaseCacheError)
	}
}

// writeVerbose prints pahole's -V lines about functions: prototype
// mismatches and the final skip reason, in name order.
func writeVerbose(w io.Writer, res *encode.Result) {
	for i, f := range res.Functions {
		if f.Mismatch != "" {
			fmt.Fprintf(w, "%s : skipping BTF encoding of function due to %s\n", f.Name, f.Mismatch)
		}
		if d := res.Decisions[i]; !d.Include {
			reason := d.Final
			if reason == "" && len(d.Reasons) > 0 {
				reason = d.Reasons[0].Message
			}
			fmt.Fprintf(w, "%s : skipping BTF encoding of function due to %s\n", f.Name, reason)
		}
	}
}

// writeELF stages output as a copy of input with the BTF sections added.
func writeELF(outs *outputs.Set, input, output string, res *encode.Result, distilled, layout bool) error {
	secs, err := btfSections(res, distilled, layout)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	data, err := os.ReadFile(input)
	if err != nil {
		return err
	}
	out, err := elfedit.Edit(input, data, secs...)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(input); err == nil {
		mode = st.Mode().Perm()
	}
	return outs.Write(output, out, mode)
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}
