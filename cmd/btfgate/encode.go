package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/atomicfile"
)

type encodeFlags struct {
	features string
	strict   bool
	jobs     int
	output   string
	summary  string
	cpuProf  string
}

func newEncodeCmd() *cobra.Command {
	var fl encodeFlags
	cmd := &cobra.Command{
		Use:   "encode [flags] -o OUT.btf INPUT",
		Short: "Encode the DWARF of INPUT (vmlinux or a module) as raw BTF",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEncode(cmd.ErrOrStderr(), args[0], fl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.features, "features", "default", "BTF features, in pahole's --btf_features syntax (default, +name, a,b,c)")
	f.BoolVar(&fl.strict, "features-strict", false, "fail on unknown feature names instead of ignoring them")
	f.IntVarP(&fl.jobs, "jobs", "j", 0, "worker goroutines (0: one per CPU); the output does not depend on it")
	f.StringVarP(&fl.output, "output", "o", "", "where to write the raw BTF (required)")
	f.StringVar(&fl.summary, "summary", "text", "summary on stderr: text, json or none")
	f.StringVar(&fl.cpuProf, "cpuprofile", "", "write a Go CPU profile to this file")
	cmd.MarkFlagRequired("output")
	return cmd
}

func runEncode(stderr io.Writer, input string, fl encodeFlags) error {
	set, unknown, err := features.Parse(fl.features, fl.strict)
	if err != nil {
		return err
	}
	for _, u := range unknown {
		fmt.Fprintf(stderr, "btfgate: ignoring unknown BTF feature %q\n", u)
	}
	if fl.cpuProf != "" {
		pf, err := os.Create(fl.cpuProf)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	res, err := encode.Encode(input, encode.Options{Features: set, Jobs: fl.jobs})
	if err != nil {
		return err
	}
	t0 := time.Now()
	raw, err := res.Types.Marshal(binary.LittleEndian)
	if err != nil {
		return fmt.Errorf("%s: marshal: %w", input, err)
	}
	if err := atomicfile.WriteFile(fl.output, raw, 0o644); err != nil {
		return err
	}
	res.Phases = append(res.Phases, encode.Phase{Name: "write", Duration: time.Since(t0)})
	sum := newSummary(input, fl.output, set, res, len(raw), time.Since(start))
	switch fl.summary {
	case "text":
		sum.writeText(stderr)
	case "json":
		return sum.writeJSON(stderr)
	case "none":
	default:
		return fmt.Errorf("--summary: want text, json or none, got %q", fl.summary)
	}
	return nil
}

func newFeaturesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "features",
		Short: "List the BTF features btfgate supports",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, f := range features.Describe() {
				def := ""
				if f.InDefault {
					def = " (default)"
				}
				fmt.Fprintf(w, "%-20s %s%s\n", f.Name, f.Help, def)
			}
			return nil
		},
	}
}
