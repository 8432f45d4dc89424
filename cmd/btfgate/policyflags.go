package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/inputs"
	"github.com/btfgate/btfgate/loader/elffile"
	"github.com/btfgate/btfgate/rules"
)

// policyFlags are the flags every command that decides functions shares:
// features, rules file and extra policy modules.
type policyFlags struct {
	features  string
	strict    bool
	rulesFile string
	policies  []string
	noDefault bool
	jobs      int
	timeout   time.Duration
	memory    string
	// allowHiding turns off the built-in guard (policies/btf_id_guard.rego).
	allowHiding bool
	// strictLists makes a list entry that matches no function an error.
	strictLists bool
	// supplement is the supplementary file of a dwz -m input.
	supplement string
	// debug sends policies' print() to debugOut (stderr).
	debug    bool
	debugOut io.Writer
	// dataFiles are --data files (rules.DataFileSpec), read after the
	// rules file's data and data_files.
	dataFiles []string
	// maxInflation bounds the input's compressed sections (elffile.Limits).
	maxInflation uint64
}

func (p *policyFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.features, "features", "", "BTF features, in pahole's --btf_features syntax (default, +name, a,b,c); default: the rules file's, else \"default\"")
	f.BoolVar(&p.strict, "features-strict", false, "fail on unknown feature names instead of ignoring them")
	f.StringVar(&p.rulesFile, "rules", "", "YAML rules file: features, policy modules, data, outputs (see docs/rules.md)")
	f.StringArrayVar(&p.policies, "policy", nil, "extra Rego policy file or directory (repeatable)")
	f.StringArrayVar(&p.dataFiles, "data", nil, "data file for the policies, like opa -d: FILE (a JSON or YAML mapping: deny:, keep:, ...) or KEY=FILE (plain text: one name or glob per line; or JSON/YAML) (repeatable)")
	f.BoolVar(&p.noDefault, "no-default-policies", false, "leave out the default policies (pahole's rules)")
	f.IntVarP(&p.jobs, "jobs", "j", 0, "worker goroutines (0: one per CPU); the output does not depend on it")
	f.DurationVar(&p.timeout, "policy-timeout", engine.DefaultTimeout, "stop a policy evaluation that takes longer than this")
	f.StringVar(&p.memory, "policy-memory", "auto", "stop a policy evaluation that grows the heap by more than this (e.g. 512MiB); auto: past the heap the encode of its input needs plus a quarter, at least 4MiB more")
	f.BoolVar(&p.strictLists, "strict", false, "fail when an entry of a deny, keep, true_signature or tags list matches no function (a warning otherwise)")
	f.StringVar(&p.supplement, "dwarf-supplement", "", "the supplementary object file of an input processed with dwz -m (default: the one its .gnu_debugaltlink or .debug_sup names, next to it or under /usr/lib/debug)")
	f.BoolVar(&p.debug, "debug", false, "write what policies print() to stderr, each line with its module and line")
	f.Uint64Var(&p.maxInflation, "max-inflation", elffile.DefaultMaxInflation, "refuse an input whose compressed debug sections claim more than this many times its size decompressed")
	f.BoolVar(&p.allowHiding, "allow-hiding-btf-ids", false, "let rules leave out functions the kernel references by BTF id (.BTF_ids) that pahole's rules keep")
}

// guardWarning is the summary's word when the built-in guard is off.
const guardWarning = "--allow-hiding-btf-ids: the guard is off; functions the kernel references by BTF id may be left out"

// limits are the policy limits the flags ask for.
func (p *policyFlags) limits() (engine.Limits, error) {
	if p.timeout <= 0 {
		return engine.Limits{}, fmt.Errorf("--policy-timeout %v: want a positive duration such as 30s", p.timeout)
	}
	lim := engine.Limits{Timeout: p.timeout}
	if p.memory == "auto" {
		// The CLI runs one encode per process, with a soft memory limit
		// sized for its input (setMemoryLimit): what Auto assumes.
		lim.Auto = true
		return lim, nil
	}
	mem, err := engine.ParseBytes(p.memory)
	if err != nil {
		return engine.Limits{}, fmt.Errorf("--policy-memory %w", err)
	}
	lim.Memory = mem
	return lim, nil
}

// inputFiles are the files a command with these flags reads: input, the
// extra ones given (a base), the rules file and the policy paths; outputs
// must be none of them.
func (p *policyFlags) inputFiles(input string, extra ...string) []string {
	files := append([]string{input}, extra...)
	files = append(files, p.rulesFile, p.supplement)
	for _, d := range p.dataFiles {
		_, f := rules.DataFileSpec(d)
		files = append(files, f)
	}
	return append(files, p.policies...)
}

// setup is what the policy flags resolve to.
type setup struct {
	features features.Set
	policy   *engine.Compiling // the engine, compiling beside the read
	rules    *rules.Rules      // nil without --rules
	// warnings are what the flags asked for that is not done (unknown
	// features); the command reports them with the encode's.
	warnings []string
}

// resolve reads the rules file and policy modules and starts compiling the
// engine.
func (p *policyFlags) resolve() (*setup, error) {
	if p.jobs < 0 {
		return nil, fmt.Errorf("-j %d: want 0 (one per CPU) or more", p.jobs)
	}
	limits, err := p.limits()
	if err != nil {
		return nil, err
	}
	var r *rules.Rules
	if p.rulesFile != "" {
		var err error
		if r, err = rules.Load(p.rulesFile); err != nil {
			return nil, err
		}
	}
	if len(p.dataFiles) > 0 && r == nil {
		r = &rules.Rules{}
	}
	for _, d := range p.dataFiles {
		if err := r.AddDataFile(d); err != nil {
			return nil, err
		}
	}
	list, strict := "default", p.strict
	if r != nil && r.Features != "" {
		list = r.Features
		strict = strict || r.FeaturesStrict
	}
	if p.features != "" {
		list = p.features
	}
	set, unknown, err := features.Parse(list, strict)
	if err != nil {
		return nil, err
	}
	var warnings []string
	for _, u := range unknown {
		warnings = append(warnings, fmt.Sprintf("ignoring unknown BTF feature %q", u))
	}
	paths := p.policies
	cfg := engine.Config{Features: set, NoDefault: p.noDefault, Limits: limits, CacheDir: policyCacheDir()}
	if p.debug {
		cfg.Print = p.debugOut
	}
	if r != nil {
		paths = append(append([]string(nil), r.Policies...), paths...)
		cfg.Data = r.Data
		cfg.NoDefault = cfg.NoDefault || r.NoDefaultPolicies
	}
	if p.allowHiding {
		data := map[string]any{}
		for k, v := range cfg.Data {
			data[k] = v
		}
		data["allow_hiding_btf_ids"] = true
		cfg.Data = data
	}
	files, err := rules.ExpandPolicies(paths)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		src, err := inputs.ReadFile(f, inputs.PolicyCap, "policy module")
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		cfg.Modules = append(cfg.Modules, engine.Module{Name: f, Source: string(src)})
	}
	return &setup{features: set, policy: engine.Start(contextBackground(), cfg), rules: r, warnings: warnings}, nil
}

func contextBackground() context.Context { return context.Background() }

// encodeWith encodes input with the policies policy is compiling, which
// the encode waits for once it has decoded the input. A policy that does
// not compile is the error, whatever the encode's: policies were compiled
// before the input was read, and a user fixing a rule wants to hear of it
// first.
//
// A policy data error (engine.DataError) is given the rules file's line
// of the entry, when r holds it.
func encodeWith(input string, policy *engine.Compiling, r *rules.Rules, opts encode.Options) (*encode.Result, error) {
	opts.WaitPolicy = policy.Wait
	res, err := encode.Encode(input, opts)
	if err != nil {
		if _, perr := policy.Wait(); perr != nil {
			return nil, placeDataError(perr, r)
		}
		if refused(err) {
			return res, err
		}
		return nil, err
	}
	return res, nil
}

// refused reports whether err is deny rules refusing outcomes; with
// encode.Options.DecideOnly the decisions come back with it.
func refused(err error) bool {
	var v *engine.ViolationsError
	return errors.As(err, &v)
}

// placeDataError prefixes a policy data error with FILE:LINE of the rules
// file entry it is about.
func placeDataError(err error, r *rules.Rules) error {
	var de *engine.DataError
	if r == nil || !errors.As(err, &de) {
		return err
	}
	if at := r.DataPlace(de.Key, de.Index); at.File != "" {
		return fmt.Errorf("%s: %w", at, err)
	}
	return err
}

// checkUnmatched turns the list entries that matched no function, and
// what in the policy modules does nothing (engine.Engine.Lint), into
// warnings in res.Warnings, each with its file and line, or with --strict
// into an error. A policy cache that could not be written is a warning
// too, never an error, as a base cache's is.
func (p *policyFlags) checkUnmatched(res *encode.Result, st *setup) error {
	r := st.rules
	var msgs, lint []string
	var cacheErr error
	if e, err := st.policy.Wait(); err == nil {
		lint, cacheErr = e.Lint(), e.CacheError()
	}
	if cacheErr != nil {
		defer func() { res.Warnings = append(res.Warnings, cacheErr.Error()) }()
	}
	for _, u := range res.Unmatched {
		msg := u.String()
		if r != nil {
			if at := r.DataPlace(u.Key, u.Index); at.Line > 0 {
				msg = fmt.Sprintf("%s: %s", at, msg)
			}
		}
		msgs = append(msgs, msg)
	}
	if p.strictLists && len(msgs) > 0 {
		return fmt.Errorf("--strict: %d list entr%s match%s no function:\n  %s", len(msgs), plural(len(msgs), "y", "ies"), plural(len(msgs), "es", ""), strings.Join(msgs, "\n  "))
	}
	if p.strictLists && len(lint) > 0 {
		return fmt.Errorf("--strict: %d thing%s in the policy modules do%s nothing:\n  %s", len(lint), plural(len(lint), "", "s"), plural(len(lint), "es", ""), strings.Join(lint, "\n  "))
	}
	res.Warnings = append(append(res.Warnings, lint...), msgs...)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
