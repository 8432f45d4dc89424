package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/outputs"
)

func newFeaturesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "features",
		Short: "List the BTF features btfgate supports (pahole's btf_features names)",
		Example: `  btfgate features
  btfgate encode --features=+global_var -o vmlinux.btf vmlinux`,
		Args: noArgs,
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

// decide runs an encode up to the policy decisions. When deny rules refuse
// outcomes, the result comes back with the error (see refused), so that a
// command can still show what it decided.
func decide(stderr io.Writer, input string, p *policyFlags) (*encode.Result, *setup, error) {
	p.debugOut = stderr
	st, err := p.resolve()
	if err != nil {
		return nil, nil, err
	}
	progress, stopProgress := newProgress(stderr)
	res, err := encodeWith(input, st.policy, st.rules, encode.Options{Features: st.features, Jobs: p.jobs,
		Detail: true, DecideOnly: true, Supplement: p.supplement, Progress: progress, MaxInflation: p.maxInflation})
	stopProgress()
	if res != nil {
		res.Warnings = append(st.warnings, res.Warnings...)
		if uerr := p.checkUnmatched(res, st); uerr != nil {
			return nil, st, uerr
		}
		writeWarnings(stderr, res)
	}
	return res, st, err
}

func newFactsCmd() *cobra.Command {
	var p policyFlags
	var output string
	var opaInput, variables bool
	cmd := &cobra.Command{
		Use:   "facts [flags] INPUT",
		Short: "Write the facts policies see about every function, as NDJSON",
		Long: `Write one JSON object per function group: the facts the policies decide on
(see docs/policies.md). With --opa-input, write instead one JSON document
shaped like the policies' input ({"features": ..., "functions": {ID: ...}}),
ready for "opa eval -i FILE -d policies/ data.btfgate.decision.result".
With --variables, the same for variables: one object per variable, or
{"features": ..., "variables": {ID: ...}} for
data.btfgate.variable_decision.result.`,
		Example: `  btfgate facts vmlinux | jq 'select(.btf_id_ref) | .name'
  btfgate facts -o ext4.facts.ndjson ext4.ko
  btfgate facts --opa-input -o input.json vmlinux && opa eval -i input.json -d policies/ data.btfgate.decision.result
  btfgate facts --variables --features=default,global_var vmlinux | jq 'select(.section == ".bss") | .name'`,
		Args: oneInput,
		RunE: func(cmd *cobra.Command, args []string) error {
			outs := outputs.New(p.inputFiles(args[0])...)
			defer outs.Abort()
			if output != "" && output != "-" {
				if err := outs.Add("-o", output); err != nil {
					return err
				}
			}
			res, st, refusal := decide(cmd.ErrOrStderr(), args[0], &p)
			if res == nil {
				return refusal
			}
			if err := outs.AddInputs(res.Attached...); err != nil {
				return err
			}
			var b strings.Builder
			if variables {
				if err := writeVariableFacts(&b, res, st.features, opaInput); err != nil {
					return err
				}
			} else if opaInput {
				doc, err := engine.InputDocument(st.features, res.Functions)
				if err != nil {
					return err
				}
				b.Write(doc)
			} else {
				for i := range res.Functions {
					js, err := json.Marshal(&res.Functions[i])
					if err != nil {
						return err
					}
					b.Write(withHexAddrs(js))
					b.WriteByte('\n')
				}
			}
			if output == "" || output == "-" {
				if _, err := io.WriteString(cmd.OutOrStdout(), b.String()); err != nil {
					return err
				}
				return refusal
			}
			if refusal != nil {
				return refusal // no file is left behind
			}
			if err := outs.Write(output, []byte(b.String()), 0o644); err != nil {
				return err
			}
			return outs.Commit()
		},
	}
	p.register(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	cmd.Flags().BoolVar(&opaInput, "opa-input", false, "write one document in the shape of the policies' input")
	cmd.Flags().BoolVar(&variables, "variables", false, "write the facts of the variables (with a static address) instead of the functions'")
	return cmd
}

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Work with Rego policies",
		Example: "  btfgate policy test examples/"}
	var verbose bool
	test := &cobra.Command{
		Use:   "test [FILE|DIR...]",
		Short: "Run the policy unit tests (test_ rules) of the default policies and of the given modules",
		Example: `  btfgate policy test
  btfgate policy test -v examples/security/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			results, err := engine.RunTests(contextBackground(), args...)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			sort.SliceStable(results, func(i, j int) bool { return results[i].File < results[j].File })
			pass, fail, skip := 0, 0, 0
			for _, r := range results {
				switch {
				case r.Skipped:
					skip++
				case r.Pass:
					pass++
					if verbose {
						fmt.Fprintf(w, "PASS %s (%s:%d)\n", r.Name, r.File, r.Line)
					}
				default:
					fail++
					fmt.Fprintf(w, "FAIL %s (%s:%d): %s\n", r.Name, r.File, r.Line, r.Failure)
				}
			}
			fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", pass, fail, skip)
			if fail > 0 {
				return fmt.Errorf("%d policy test(s) failed", fail)
			}
			return nil
		},
	}
	test.Flags().BoolVarP(&verbose, "verbose", "v", false, "list passing tests too")
	cmd.AddCommand(test)
	return cmd
}
