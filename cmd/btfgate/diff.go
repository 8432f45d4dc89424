package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/internal/inputs"
)

// Exit statuses of btfgate diff besides 0, as diff(1) has them.
const (
	exitDiffer  = 1 // the inputs differ
	exitTrouble = 2 // they could not be compared
)

// exitError is an error that sets the exit status of the process. With a
// nil err it is silent: diff returns it when the inputs differ, which is
// an answer, not a failure.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitStatus prints err on stderr, unless it is a silent exitError, and
// returns the status the process should exit with: the exitError's code,
// else 1.
func exitStatus(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "btfgate:", err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "btfgate:", err)
	return 1
}

// trouble marks err as diff's exit status 2.
func trouble(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitTrouble, err: err}
}

type diffFlags struct {
	json    bool
	base    string
	newBase string
	limit   int
	// step shows on a terminal what the diff is doing, stop erases it
	// before the output (see newSteps).
	step func(string)
	stop func()
}

func newDiffCmd() *cobra.Command {
	var fl diffFlags
	cmd := &cobra.Command{
		Use:   "diff [flags] OLD NEW",
		Short: "Compare two BTF files by content, or two decision reports",
		Long: `Compare OLD with NEW and exit with status 0 when they are the same, 1 when
they differ and 2 on trouble, as diff(1) does.

OLD and NEW are both BTF or both decision reports; diff tells them apart by
content. BTF is raw BTF (either byte order), an ELF file with a .BTF
section (vmlinux, a module), or split BTF on --base. Types are compared by
content, not by id: the output lists the functions, variables and named
types added, removed or changed (prototype, layout), then the anonymous
types found on one side only.

Decision reports are the NDJSON files "btfgate encode --report" writes.
The output lists the functions whose decision changed, with the reasons on
each side, those whose reasons changed under the same decision, and those
found in one report only; variables alike, named "variable NAME". Facts are
not compared.`,
		Example: `  btfgate diff vmlinux.pahole.btf vmlinux.btfgate.btf
  btfgate diff --json old.ndjson new.ndjson | jq '.decision_changed[].name'`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return trouble(fmt.Errorf("diff: want OLD and NEW, got %d argument(s)", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], args[1], &fl)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return trouble(err) })
	f := cmd.Flags()
	f.BoolVar(&fl.json, "json", false, "write the difference as one JSON object (every entry; --limit does not apply)")
	f.StringVar(&fl.base, "base", "", "base BTF (raw or ELF) that split BTF OLD and NEW extend")
	f.StringVar(&fl.newBase, "new-base", "", "base of NEW when it differs from --base (e.g. two kernels' modules)")
	f.IntVar(&fl.limit, "limit", 0, "list at most N entries per section in text output (0: all)")
	return cmd
}

// inputKind is what diff found in a file.
type inputKind int

const (
	kindBTF    inputKind = iota // raw BTF or ELF
	kindReport                  // NDJSON decision report (possibly empty)
)

func (k inputKind) String() string {
	if k == kindReport {
		return "a decision report"
	}
	return "BTF"
}

// sniff tells BTF from a decision report by the first bytes of path.
func sniff(path string) (inputKind, error) {
	f, err := inputs.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var head [512]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	return sniffBytes(path, head[:n])
}

func sniffBytes(path string, b []byte) (inputKind, error) {
	switch {
	case bytes.HasPrefix(b, []byte("\x7fELF")),
		bytes.HasPrefix(b, []byte{0x9f, 0xeb}), // BTF magic 0xeb9f, little endian
		bytes.HasPrefix(b, []byte{0xeb, 0x9f}): // big endian
		return kindBTF, nil
	}
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 || t[0] == '{' {
		return kindReport, nil
	}
	return 0, fmt.Errorf("%s: neither BTF (raw or ELF) nor a decision report (NDJSON)", path)
}

func runDiff(stdout, stderr io.Writer, oldPath, newPath string, fl *diffFlags) error {
	ko, err := sniff(oldPath)
	if err != nil {
		return trouble(err)
	}
	kn, err := sniff(newPath)
	if err != nil {
		return trouble(err)
	}
	if ko != kn {
		return trouble(fmt.Errorf("%s is %s but %s is %s: compare like with like", oldPath, ko, newPath, kn))
	}
	var equal bool
	fl.step, fl.stop = newSteps(stderr)
	defer fl.stop()
	if ko == kindReport {
		if fl.base != "" || fl.newBase != "" {
			return trouble(errors.New("--base and --new-base are for BTF, not decision reports"))
		}
		equal, err = diffReports(stdout, oldPath, newPath, fl)
	} else {
		equal, err = diffBTF(stdout, oldPath, newPath, fl)
	}
	if err != nil {
		return trouble(err)
	}
	if !equal {
		return &exitError{code: exitDiffer}
	}
	return nil
}

// diffBTF compares two BTF files by content with btfdiff.
func diffBTF(w io.Writer, oldPath, newPath string, fl *diffFlags) (bool, error) {
	newBase := fl.newBase
	if newBase == "" {
		newBase = fl.base
	}
	type loaded struct {
		set *btfdiff.Set
		err error
	}
	fl.step("diff: reading " + oldPath + " and " + newPath)
	ch := make(chan loaded, 1)
	go func() {
		s, err := btfdiff.Load(newPath, newBase)
		ch <- loaded{s, err}
	}()
	a, errA := btfdiff.Load(oldPath, fl.base)
	lb := <-ch
	if err := errors.Join(splitHint(errA, fl.base), splitHint(lb.err, newBase)); err != nil {
		return false, err
	}
	fl.step("diff: comparing")
	r := btfdiff.Compare(a, lb.set)
	fl.stop()
	if fl.json {
		return r.Equal(), r.WriteJSON(w)
	}
	return r.Equal(), r.WriteText(w, fl.limit)
}

// splitHint adds to a decoding error of BTF read without a base that it
// may be split BTF, which needs one.
func splitHint(err error, base string) error {
	var de *btfdiff.DecodeError
	if base == "" && errors.As(err, &de) {
		return fmt.Errorf("%w (split BTF, such as a module's, needs its base: --base, --new-base)", err)
	}
	return err
}

// reportEntry is the part of a decision report line that diff compares:
// the decision and why, without the facts.
type reportEntry struct {
	// Kind is "variable" for a variable's line, whose Name diff reads as
	// "variable NAME" so that variables match variables only.
	Kind        string           `json:"kind,omitempty"`
	ID          int              `json:"id"`
	Name        string           `json:"name"`
	Decision    string           `json:"decision"`
	Final       string           `json:"pahole_reason,omitempty"`
	Reasons     []reasonJSON     `json:"reasons,omitempty"`
	Kept        []reasonJSON     `json:"kept_by,omitempty"`
	Annotations []annotationJSON `json:"annotations,omitempty"`
}

// sameWhy reports whether two entries were decided for the same reasons.
func (e *reportEntry) sameWhy(o *reportEntry) bool {
	return e.Final == o.Final && slices.Equal(e.Reasons, o.Reasons) &&
		slices.Equal(e.Kept, o.Kept) && slices.Equal(e.Annotations, o.Annotations)
}

// readReport reads a decision report. Lines are checked for a name and a
// decision; the facts are skipped.
func readReport(path string) ([]reportEntry, error) {
	f, err := inputs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var out []reportEntry
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var e reportEntry
			if jerr := json.Unmarshal(b, &e); jerr != nil {
				return nil, fmt.Errorf("%s:%d: not a decision report line: %v", path, line, jerr)
			}
			if e.Name == "" || (e.Decision != "include" && e.Decision != "exclude") {
				return nil, fmt.Errorf("%s:%d: not a decision report line: want a name and decision \"include\" or \"exclude\"", path, line)
			}
			if e.Kind == varKind {
				e.Name = varKind + " " + e.Name
			}
			out = append(out, e)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// reportSide summarises one report.
type reportSide struct {
	Name      string `json:"name"`
	Functions int    `json:"functions"`
	Variables int    `json:"variables,omitempty"`
	Included  int    `json:"included"`
	Excluded  int    `json:"excluded"`
}

// decisionChange is one function decided differently, or for other
// reasons, in the two reports.
type decisionChange struct {
	Name string       `json:"name"`
	Old  *reportEntry `json:"old"`
	New  *reportEntry `json:"new"`
}

// reportDiff is the difference between two decision reports.
type reportDiff struct {
	Equal bool       `json:"equal"`
	A     reportSide `json:"a"`
	B     reportSide `json:"b"`
	// Changed: the decision differs. ReasonsChanged: the same decision,
	// for other reasons (pahole's reason, the rules that applied, keep
	// rules, decl tags).
	Changed        []decisionChange `json:"decision_changed"`
	ReasonsChanged []decisionChange `json:"reasons_changed"`
	OnlyA          []reportEntry    `json:"only_a"`
	OnlyB          []reportEntry    `json:"only_b"`
}

func side(name string, es []reportEntry) reportSide {
	s := reportSide{Name: name}
	for i := range es {
		if es[i].Kind == varKind {
			s.Variables++
		} else {
			s.Functions++
		}
		if es[i].Decision == "include" {
			s.Included++
		} else {
			s.Excluded++
		}
	}
	return s
}

// compareReports matches functions by name (the n-th of a name in a with
// the n-th in b) and lists what differs, sorted by name.
func compareReports(nameA string, a []reportEntry, nameB string, b []reportEntry) *reportDiff {
	d := &reportDiff{A: side(nameA, a), B: side(nameB, b),
		Changed: []decisionChange{}, ReasonsChanged: []decisionChange{}, OnlyA: []reportEntry{}, OnlyB: []reportEntry{}}
	byName := map[string][]int{}
	for i := range b {
		byName[b[i].Name] = append(byName[b[i].Name], i)
	}
	matched := make([]bool, len(b))
	for i := range a {
		ea := &a[i]
		idx := byName[ea.Name]
		if len(idx) == 0 {
			d.OnlyA = append(d.OnlyA, *ea)
			continue
		}
		j := idx[0]
		byName[ea.Name] = idx[1:]
		matched[j] = true
		eb := &b[j]
		switch {
		case ea.Decision != eb.Decision:
			d.Changed = append(d.Changed, decisionChange{ea.Name, ea, eb})
		case !ea.sameWhy(eb):
			d.ReasonsChanged = append(d.ReasonsChanged, decisionChange{ea.Name, ea, eb})
		}
	}
	for j := range b {
		if !matched[j] {
			d.OnlyB = append(d.OnlyB, b[j])
		}
	}
	byChange := func(x, y decisionChange) int { return strings.Compare(x.Name, y.Name) }
	byEntry := func(x, y reportEntry) int { return strings.Compare(x.Name, y.Name) }
	slices.SortStableFunc(d.Changed, byChange)
	slices.SortStableFunc(d.ReasonsChanged, byChange)
	slices.SortStableFunc(d.OnlyA, byEntry)
	slices.SortStableFunc(d.OnlyB, byEntry)
	d.Equal = len(d.Changed)+len(d.ReasonsChanged)+len(d.OnlyA)+len(d.OnlyB) == 0
	return d
}

func diffReports(w io.Writer, oldPath, newPath string, fl *diffFlags) (bool, error) {
	type loaded struct {
		es  []reportEntry
		err error
	}
	fl.step("diff: reading " + oldPath + " and " + newPath)
	ch := make(chan loaded, 1)
	go func() {
		es, err := readReport(newPath)
		ch <- loaded{es, err}
	}()
	a, errA := readReport(oldPath)
	lb := <-ch
	if err := errors.Join(errA, lb.err); err != nil {
		return false, err
	}
	d := compareReports(oldPath, a, newPath, lb.es)
	if fl.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return d.Equal, enc.Encode(d)
	}
	return d.Equal, d.writeText(w, fl.limit)
}

// writeText writes the report difference for people. limit caps the
// entries per section; <= 0 lists all.
func (d *reportDiff) writeText(w io.Writer, limit int) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	for _, s := range []struct {
		label string
		side  reportSide
	}{{"A", d.A}, {"B", d.B}} {
		vars := ""
		if s.side.Variables > 0 {
			vars = fmt.Sprintf(" and %d variables", s.side.Variables)
		}
		p("%s: %s (%d functions%s: %d included, %d excluded)\n", s.label, s.side.Name, s.side.Functions, vars, s.side.Included, s.side.Excluded)
	}
	in, out := 0, 0
	for _, c := range d.Changed {
		if c.New.Decision == "include" {
			in++
		} else {
			out++
		}
	}
	p("\ndecision changed: %d (%d now excluded, %d now included)\n", len(d.Changed), out, in)
	for i, c := range d.Changed {
		if limit > 0 && i == limit {
			p("  … %d more\n", len(d.Changed)-limit)
			break
		}
		p("  ~ %s: %s -> %s\n      A: %s\n      B: %s\n", c.Name, c.Old.Decision, c.New.Decision, c.Old.why(), c.New.why())
	}
	p("\nreasons changed, same decision: %d\n", len(d.ReasonsChanged))
	for i, c := range d.ReasonsChanged {
		if limit > 0 && i == limit {
			p("  … %d more\n", len(d.ReasonsChanged)-limit)
			break
		}
		p("  ~ %s: %s\n      A: %s\n      B: %s\n", c.Name, c.Old.Decision, c.Old.why(), c.New.why())
	}
	for _, s := range []struct {
		label, sign string
		es          []reportEntry
	}{{"only in A", "-", d.OnlyA}, {"only in B", "+", d.OnlyB}} {
		p("\nfunctions %s: %d\n", s.label, len(s.es))
		for i := range s.es {
			if limit > 0 && i == limit {
				p("  … %d more\n", len(s.es)-limit)
				break
			}
			p("  %s %s: %s\n", s.sign, s.es[i].Name, s.es[i].why())
		}
	}
	if d.Equal {
		p("\nequal\n")
	} else {
		p("\ndifferent\n")
	}
	return bw.Flush()
}

// why is one line saying what was decided and why: the decision, the
// skip and exclude reasons (which keep rules overrode for an included
// function), keep rules and decl tags.
func (e *reportEntry) why() string {
	var b strings.Builder
	b.WriteString(e.Decision)
	list := func(rs []reasonJSON) string {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = r.Rule + ": " + r.Message
			if r.Module != "" {
				parts[i] += " (" + r.Module + ")"
			}
		}
		return strings.Join(parts, "; ")
	}
	switch {
	case e.Decision == "exclude" && len(e.Reasons) > 0:
		b.WriteString(", " + list(e.Reasons))
	case len(e.Reasons) > 0:
		b.WriteString(", overriding " + list(e.Reasons))
	}
	if len(e.Kept) > 0 {
		b.WriteString(", kept by " + list(e.Kept))
	}
	for _, a := range e.Annotations {
		fmt.Fprintf(&b, ", decl tag %q", a.Value)
		if a.Component >= 0 {
			fmt.Fprintf(&b, " on parameter %d", a.Component)
		}
	}
	return b.String()
}
