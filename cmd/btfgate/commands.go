package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/outputs"
)

func newFeaturesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "features",
		Short: "List the BTF features btfgate supports (pahole's btf_features names)",
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

// decide runs an encode up to the policy decisions.
func decide(stderr io.Writer, input string, p *policyFlags) (*encode.Result, *setup, error) {
	st, err := p.resolve()
	if err != nil {
		return nil, nil, err
	}
	res, err := encodeWith(input, st.policy, st.rules, encode.Options{Features: st.features, Jobs: p.jobs,
		Detail: true, DecideOnly: true, MaxInflation: p.maxInflation})
	if err == nil {
		res.Warnings = append(st.warnings, res.Warnings...)
		if err = p.checkUnmatched(res, st.rules); err == nil {
			writeWarnings(stderr, res)
		}
	}
	return res, st, err
}

func newFactsCmd() *cobra.Command {
	var p policyFlags
	var output string
	var opaInput bool
	cmd := &cobra.Command{
		Use:   "facts [flags] INPUT",
		Short: "Write the facts policies see about every function, as NDJSON",
		Long: `Write one JSON object per function group: the facts the policies decide on
(see docs/policies.md). With --opa-input, write instead one JSON document
shaped like the policies' input ({"features": ..., "functions": {ID: ...}}),
ready for "opa eval -i FILE -d policies/ data.btfgate.decision.result".`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			outs := outputs.New(p.inputFiles(args[0])...)
			defer outs.Abort()
			if output != "" && output != "-" {
				if err := outs.Add("-o", output); err != nil {
					return err
				}
			}
			res, st, err := decide(cmd.ErrOrStderr(), args[0], &p)
			if err != nil {
				return err
			}
			var b strings.Builder
			if opaInput {
				fns := map[string]any{}
				for i := range res.Functions {
					fns[fmt.Sprint(res.Functions[i].ID)] = &res.Functions[i]
				}
				feats := map[string]bool{}
				for _, f := range features.Describe() {
					feats[f.Name] = false
				}
				for _, n := range st.features.Enabled() {
					feats[n] = true
				}
				enc := json.NewEncoder(&b)
				if err := enc.Encode(map[string]any{"features": feats, "functions": fns}); err != nil {
					return err
				}
			} else {
				enc := json.NewEncoder(&b)
				for i := range res.Functions {
					if err := enc.Encode(&res.Functions[i]); err != nil {
						return err
					}
				}
			}
			if output == "" || output == "-" {
				_, err := io.WriteString(cmd.OutOrStdout(), b.String())
				return err
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
	return cmd
}

// defaultRuleNames are pahole's six rules in precedence order, with the
// message pahole prints.
var defaultRuleNames = [...][2]string{
	{"ambiguous_address", "ambiguous address"},
	{"optimized_parameters", "optimized parameters"},
	{"reordered_parameters", "reordered parameters"},
	{"uncertain_location", "uncertain parameter location"},
	{"inconsistent_prototype", "inconsistet prototype"},
	{"unexpected_register", "unexpected register usage for parameter"},
}

func newExplainCmd() *cobra.Command {
	var p policyFlags
	var asJSON bool
	var maxInst int
	cmd := &cobra.Command{
		Use:   "explain [flags] INPUT NAME...",
		Short: "Explain why functions were kept or left out: every rule's verdict and the facts",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, _, err := decide(cmd.ErrOrStderr(), args[0], &p)
			if err != nil {
				return err
			}
			byName := map[string][]int{}
			for i, f := range res.Functions {
				byName[f.Name] = append(byName[f.Name], i)
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			var missing []string
			for _, name := range args[1:] {
				idx, ok := byName[name]
				if !ok {
					missing = append(missing, name)
					fmt.Fprintf(w, "%s: no function group: no STT_FUNC symbol with this base name has a DWARF definition\n\n", name)
					continue
				}
				for _, i := range idx {
					if asJSON {
						if err := json.NewEncoder(w).Encode(newReportLine(res, i, true)); err != nil {
							return err
						}
						continue
					}
					explainText(w, res, i, maxInst)
				}
			}
			if len(missing) > 0 {
				w.Flush()
				return fmt.Errorf("not found: %s", strings.Join(missing, ", "))
			}
			return nil
		},
	}
	p.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each function as a JSON report line")
	cmd.Flags().IntVar(&maxInst, "instances", 8, "list at most this many DWARF instances per function (0: all)")
	return cmd
}

func explainText(w io.Writer, res *encode.Result, i, maxInst int) {
	f := &res.Functions[i]
	d := res.Decisions[i]
	verdict := "INCLUDED in BTF"
	if !d.Include {
		verdict = "LEFT OUT of BTF"
	}
	fmt.Fprintf(w, "%s: %s\n", f.Name, verdict)
	switch {
	case d.Final != "":
		fmt.Fprintf(w, "  pahole would print: %s : skipping BTF encoding of function due to %s\n", f.Name, d.Final)
	case f.TrueSig != nil:
		fmt.Fprintf(w, "  pahole would emit it as %s (true_signature)\n", f.TrueSig.TrueSym)
	default:
		fmt.Fprintf(w, "  pahole would emit it\n")
	}
	applied := map[string]engine.Reason{}
	for _, r := range d.Reasons {
		applied[r.Rule] = r
	}
	fmt.Fprintf(w, "  default rules (pahole precedence):\n")
	for _, r := range defaultRuleNames {
		v := "no"
		if _, ok := applied[r[0]]; ok {
			v = "YES: " + r[1]
		}
		fmt.Fprintf(w, "    %-24s %s\n", r[0], v)
		delete(applied, r[0])
	}
	var others []string
	for _, r := range d.Reasons {
		if _, ok := applied[r.Rule]; ok {
			others = append(others, fmt.Sprintf("    %-24s %s (%s)", r.Rule, r.Message, r.Module))
		}
	}
	for _, r := range d.Kept {
		others = append(others, fmt.Sprintf("    %-24s keep: %s (%s)", r.Rule, r.Message, r.Module))
	}
	for _, r := range d.TrueSignature {
		others = append(others, fmt.Sprintf("    %-24s true signature: %s (%s)", r.Rule, r.Message, r.Module))
	}
	for _, a := range d.Annotations {
		dropped := ""
		if res.AnnotationsDropped != "" {
			dropped = " (not encoded: " + res.AnnotationsDropped + ")"
		}
		others = append(others, fmt.Sprintf("    %-24s decl tag %q component %d%s", a.Rule, a.Value, a.Component, dropped))
	}
	if len(others) > 0 {
		fmt.Fprintf(w, "  other rules:\n%s\n", strings.Join(others, "\n"))
	}
	fmt.Fprintf(w, "  facts: unexpected_reg=%v uncertain_loc=%v reordered=%v inconsistent=%v ambiguous_addr=%v kfunc=%v btf_id_ref=%v section=%s\n",
		f.UnexpectedReg, f.UncertainLoc, f.Reordered, f.Inconsistent, f.AmbiguousAddr, f.Kfunc, f.BTFIDRef, f.Section)
	if len(f.TextRegions) > 0 {
		fmt.Fprintf(w, "  text regions: %s\n", strings.Join(f.TextRegions, " "))
	}
	if f.TrueSig != nil {
		fmt.Fprintf(w, "  true signature: %s\n", f.TrueSig.Prototype)
	}
	if f.Canonical.Prototype != "" {
		fmt.Fprintf(w, "  prototype: %s\n", f.Canonical.Prototype)
	}
	if f.Mismatch != "" {
		fmt.Fprintf(w, "  prototype mismatch: %s\n", f.Mismatch)
	}
	syms := make([]string, 0, len(f.Symbols))
	for _, s := range f.Symbols {
		syms = append(syms, fmt.Sprintf("%s@%#x", s.Name, s.Value))
	}
	fmt.Fprintf(w, "  symbols: %s\n", strings.Join(syms, " "))
	var inst []string
	if i < len(res.Instances) {
		for k, in := range res.Instances[i] {
			if maxInst > 0 && k == maxInst {
				inst = append(inst, fmt.Sprintf("    ... %d more (--instances 0 lists all)\n", len(res.Instances[i])-k))
				break
			}
			mark := " "
			if in.CU == f.Canonical.CU && in.DIE == f.Canonical.DIE {
				mark = "*"
			}
			inst = append(inst, fmt.Sprintf("   %s#%d CU %d DIE %#x addr %#x match=%v inline=%v optimized_parms=%v unexpected_reg=%v reordered=%v optimized_symbol=%v\n"+
				"        clang=%v signature_changed=%v abi_walk=%s\n%s",
				mark, k, in.CU, in.DIE, in.Addr, in.AddrMatchesSymbol, in.Inline, in.OptimizedParms, in.UnexpectedReg, in.Reordered, in.OptimizedSymbol,
				in.Clang, in.SignatureChanged, in.ABIWalk, paramLines(in)))
		}
	}
	fmt.Fprintf(w, "  instances (%d, * = canonical):\n%s\n", f.Instances, strings.Join(inst, ""))
}

// paramLines lists an instance's parameters with their location facts.
func paramLines(in facts.Instance) string {
	var b strings.Builder
	for _, p := range in.Params {
		origin := ""
		if p.OriginIdx >= 0 {
			origin = fmt.Sprintf(" origin_idx=%d", p.OriginIdx)
		}
		slot := " slot=none"
		if p.ABISlot >= 0 {
			slot = fmt.Sprintf(" slot=%d", p.ABISlot)
			if p.ABISlots > 1 {
				slot += fmt.Sprintf("-%d", p.ABISlot+p.ABISlots-1)
			}
			slot += fmt.Sprintf(" expected_reg=%d", p.ExpectedReg)
		}
		if p.TrueSigMember != "" {
			slot += fmt.Sprintf(" member=%s passed_as_member=%v", p.TrueSigMember, p.PassedAsMember)
		}
		fmt.Fprintf(&b, "        param %d %s %s: has_loc=%v loc_reg=%d const=%v stack=%v size=%d in_memory=%v struct=%v optimized=%v unexpected_reg=%v%s%s\n",
			p.Idx, p.Type, p.Name, p.HasLoc, p.LocReg, p.LocConst || p.HasConstValue, p.LocStack, p.TypeSize, p.InMemory,
			p.IsStruct, p.Optimized, p.UnexpectedReg, slot, origin)
	}
	return b.String()
}

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Work with Rego policies"}
	var verbose bool
	test := &cobra.Command{
		Use:   "test [FILE|DIR...]",
		Short: "Run the policy unit tests (test_ rules) of the default policies and of the given modules",
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
