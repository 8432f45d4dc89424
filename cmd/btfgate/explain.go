package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
)

func newExplainCmd() *cobra.Command {
	var p policyFlags
	var asJSON bool
	var maxInst int
	var report string
	cmd := &cobra.Command{
		Use:   "explain [flags] INPUT NAME...",
		Short: "Explain why functions were kept or left out: every rule's verdict and the facts",
		Long: `Explain, for each NAME, whether the function goes into BTF and why: the rules
that applied (pahole's and yours, with the file defining each), the deny rule
that refused an outcome, the facts the rules read, the canonical DWARF
instance and the instances whose facts tripped a rule, with the parameter at
fault.

NAME may be a function, a clone symbol (foo.isra.0 explains foo's group) or a
glob (ext4_*ioctl*). A NAME that is no function group but a variable with a
static address explains that variable (every one of that name): whether it
is a VAR, pahole's reason and the variable rules' (package
btfgate.variables). A name that is not a function group is classified: an
ELF symbol without DWARF (assembly), a function only ever inlined, or no such
name (with the closest names).

With --report FILE, explain reads a decision report written by
"encode --report" instead of decoding INPUT; it then has no instances and
cannot classify misses beyond suggesting names.`,
		Example: `  btfgate explain vmlinux kmalloc_array ___gnet_stats_copy_basic.isra.0
  btfgate explain vmlinux perf_event_reed kmalloc entry_SYSCALL_64
  btfgate explain --rules deny.yaml ext4.ko 'ext4_*ioctl*'
  btfgate explain --json vmlinux kmalloc_trace | jq .decision
  btfgate encode --report r.ndjson -o vmlinux.btf vmlinux && btfgate explain --report r.ndjson kmalloc_array`,
		Args: func(cmd *cobra.Command, args []string) error {
			if report != "" {
				if len(args) == 0 {
					return usageError(cmd, "explain --report FILE needs at least one function NAME")
				}
				return nil
			}
			if len(args) < 2 {
				return usageError(cmd, "explain needs an INPUT (vmlinux, a module, an object) and at least one function NAME")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var res *encode.Result
			var refusal error
			input, names := "", args
			if report != "" {
				var err error
				if res, err = readReportResult(report); err != nil {
					return err
				}
			} else {
				input, names = args[0], args[1:]
				res, _, refusal = decide(cmd.ErrOrStderr(), input, &p)
				if res == nil {
					return refusal
				}
			}
			var denied, deniedVars map[int][]engine.Violation
			var v *engine.ViolationsError
			if errors.As(refusal, &v) {
				denied, deniedVars = map[int][]engine.Violation{}, map[int][]engine.Violation{}
				for _, x := range v.Violations {
					if x.Variable {
						deniedVars[x.ID] = append(deniedVars[x.ID], x)
					} else {
						denied[x.ID] = append(denied[x.ID], x)
					}
				}
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			names, err := explainVariables(w, res, names, deniedVars, asJSON)
			if err != nil || len(names) == 0 {
				return cmp.Or(err, refusal)
			}
			ex := explainer{res: res, denied: denied, maxInst: maxInst, asJSON: asJSON, stderr: cmd.ErrOrStderr(), supplement: p.supplement}
			missing, err := ex.explainAll(w, input, names)
			if err != nil {
				return err
			}
			w.Flush()
			if refusal != nil {
				return refusal
			}
			if len(missing) > 0 {
				return fmt.Errorf("no function group: %s", strings.Join(missing, ", "))
			}
			return nil
		},
	}
	p.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each function as a JSON report line")
	cmd.Flags().IntVar(&maxInst, "instances", 8, "list at most this many DWARF instances per function (0: all)")
	cmd.Flags().StringVar(&report, "report", "", "read the decisions from this report (encode --report) instead of decoding an INPUT")
	return cmd
}

// explainer writes the explanations of one explain run.
type explainer struct {
	res     *encode.Result
	denied  map[int][]engine.Violation // by function id
	maxInst int
	asJSON  bool
	stderr  io.Writer // for progress
	// supplement is --dwarf-supplement, for the DWARF scan of misses.
	supplement string
}

// explainAll explains every name in order and returns the names that are
// no function group. input is "" when the result came from a report.
func (ex *explainer) explainAll(w io.Writer, input string, names []string) ([]string, error) {
	idx := newNameIndex(ex.res)
	var missing []string
	var pending []int // positions in names of the misses, classified together
	found := make([][]int, len(names))
	notes := make([]string, len(names))
	for k, name := range names {
		found[k], notes[k] = idx.lookup(name)
		if len(found[k]) == 0 {
			pending = append(pending, k)
		}
	}
	var misses map[string]*miss
	if len(pending) > 0 {
		want := make([]string, len(pending))
		for j, k := range pending {
			want[j] = names[k]
		}
		progress, stop := newProgress(ex.stderr)
		var err error
		misses, err = classifyMisses(input, ex.supplement, want, idx, progress)
		stop()
		if err != nil {
			return nil, err
		}
	}
	for k, name := range names {
		if len(found[k]) == 0 {
			missing = append(missing, name)
			m := misses[name]
			if ex.asJSON {
				if err := writeJSONLine(w, m); err != nil {
					return nil, err
				}
				continue
			}
			m.write(w)
			continue
		}
		for _, i := range found[k] {
			if ex.asJSON {
				l := newReportLine(ex.res, i, true)
				l.Query = name
				l.Note = notes[k]
				l.DeniedBy = violationsJSON(ex.denied[ex.res.Functions[i].ID])
				if err := writeJSONLine(w, l); err != nil {
					return nil, err
				}
				continue
			}
			if notes[k] != "" {
				fmt.Fprintf(w, "%s: %s\n", name, notes[k])
			}
			ex.explainText(w, i)
		}
	}
	return missing, nil
}

// explainText writes what was decided about function group i and why.
func (ex *explainer) explainText(w io.Writer, i int) {
	res := ex.res
	f := &res.Functions[i]
	d := res.Decisions[i]
	verdict := "INCLUDED in BTF"
	if !d.Include {
		verdict = "LEFT OUT of BTF"
	}
	fmt.Fprintf(w, "%s: %s\n", f.Name, verdict)
	for _, v := range ex.denied[f.ID] {
		fmt.Fprintf(w, "  REFUSED by deny rule %s: %s\n", ruleAt(v.Rule, v.Module), v.Message)
	}
	switch {
	case d.Final != "":
		fmt.Fprintf(w, "  pahole would print: %s : skipping BTF encoding of function due to %s\n", f.Name, d.Final)
	case f.TrueSig != nil:
		fmt.Fprintf(w, "  pahole would emit it as %s (true_signature)\n", f.TrueSig.TrueSym)
	default:
		fmt.Fprintf(w, "  pahole would emit it\n")
	}
	printRules(w, res, d, "pahole's in its precedence order", true)
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
	if i >= len(res.Instances) {
		fmt.Fprintf(w, "  instances: %d (a report does not hold them: explain INPUT to list them)\n\n", f.Instances)
		return
	}
	writeInstances(w, f, res.Instances[i], ex.maxInst)
}

func moduleOr(m string) string {
	if m == "" {
		return "computed rule name"
	}
	return m
}

func ruleAt(rule, module string) string {
	if module == "" {
		return rule
	}
	return rule + " (" + module + ")"
}

// usageError is an argument error in words, with the command's usage line.
func usageError(cmd *cobra.Command, msg string) error {
	return fmt.Errorf("%s\nusage: %s (see %s --help)", msg, cmd.UseLine(), cmd.CommandPath())
}

// printRules writes the rules behind a decision, for people: the skip
// and exclude rules that left the subject out (pahole's first, in the
// order named by paholeOrder), the keep and true_signature rules, and the
// decl tags, with their component when withComponent (functions).
func printRules(w io.Writer, res *encode.Result, d engine.Decision, paholeOrder string, withComponent bool) {
	if len(d.Reasons) == 0 {
		fmt.Fprintf(w, "  rules that left it out: none\n")
	} else {
		fmt.Fprintf(w, "  rules that left it out (%s, then yours):\n", paholeOrder)
		for _, r := range d.Reasons {
			fmt.Fprintf(w, "    %-24s %s (%s)\n", r.Rule, r.Message, moduleOr(r.Module))
		}
	}
	for _, r := range d.Kept {
		fmt.Fprintf(w, "  kept by %-16s %s (%s)\n", r.Rule, r.Message, moduleOr(r.Module))
	}
	for _, r := range d.TrueSignature {
		fmt.Fprintf(w, "  true signature by %s: %s (%s)\n", r.Rule, r.Message, moduleOr(r.Module))
	}
	for _, a := range d.Annotations {
		dropped := ""
		if res.AnnotationsDropped != "" {
			dropped = " (not encoded: " + res.AnnotationsDropped + ")"
		}
		if withComponent {
			fmt.Fprintf(w, "  decl tag %q component %d by %s%s\n", a.Value, a.Component, a.Rule, dropped)
		} else {
			fmt.Fprintf(w, "  decl tag %q by %s%s\n", a.Value, a.Rule, dropped)
		}
	}
}
