package main

import (
	"encoding/binary"
	"github.com/spf13/cobra"
	"slices"

	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/elfedit"
	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/inputs"
	"github.com/btfgate/btfgate/internal/outputs"
	"github.com/btfgate/btfgate/rules"
)

// paholeVersion is what "pahole --version" answers: btfgate reproduces the
// BTF of pahole v1.31 (dwarves 1436daf), so kernel builds pick the same
// flags for it (scripts/pahole-version.sh turns v1.31 into 131).
const paholeVersion = "v1.31"

// rulesEnv names a rules file for kernel builds, which keep calling
// "$(PAHOLE) -J $(PAHOLE_FLAGS) ...": set it in the environment (or pass
// --btfgate-rules=FILE in PAHOLE_FLAGS) to change policy without touching
// Kbuild.
const rulesEnv = "BTFGATE_RULES"

// paholeArgs is a parsed pahole command line (BTF encoding options only).
type paholeArgs struct {
	encode    bool // -J / --btf_encode
	detached  string
	base      string
	jobs      int
	verbose   bool
	set       features.Set
	reset     bool // a --btf_features has been seen
	strict    bool
	langExcl  []string
	rulesFile string
	files     []string
	version   bool
	supported bool
}

// parsePaholeArgs reads pahole's options in order, as argp does, so that
// the first --btf_features resets what legacy flags before it set
// (pahole-behaviour.md §1.1).
func parsePaholeArgs(args []string, stderr io.Writer) (*paholeArgs, error) {
	p := &paholeArgs{set: features.Legacy(), jobs: 1}
	addFeatures := func(list string, strict bool) error {
		if !p.reset {
			p.set, p.reset = features.Set{}, true
		}
		s, unknown, err := features.Parse(list, strict)
		if err != nil {
			return err
		}
		for _, u := range unknown {
			if p.verbose {
				fmt.Fprintf(stderr, "Ignoring unsupported feature '%s'\n", u)
			}
		}
		p.set = features.Union(p.set, s)
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs a value", name)
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "-J" || a == "--btf_encode":
			p.encode = true
		case a == "-V" || a == "--verbose":
			p.verbose = true
		case a == "-JV" || a == "-VJ":
			p.encode, p.verbose = true, true
		case a == "--version":
			p.version = true
		case a == "--supported_btf_features":
			p.supported = true
		case a == "-j" || a == "--jobs":
			p.jobs = runtime.NumCPU() * 11 / 10
		case strings.HasPrefix(a, "-j") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			n, err := strconv.Atoi(a[2:])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad job count %q", a)
			}
			p.jobs = n
		case name == "--jobs":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad job count %q", a)
			}
			p.jobs = n
		case name == "--btf_features" || name == "--btf_features_strict":
			v, err := next()
			if err != nil {
				return nil, err
			}
			strict := name == "--btf_features_strict"
			p.strict = p.strict || strict
			if err := addFeatures(v, strict); err != nil {
				return nil, err
			}
		case name == "--btf_encode_detached":
			v, err := next()
			if err != nil {
				return nil, err
			}
			p.encode, p.detached = true, v
		case name == "--btf_base":
			v, err := next()
			if err != nil {
				return nil, err
			}
			p.base = v
		case name == "--lang_exclude":
			v, err := next()
			if err != nil {
				return nil, err
			}
			p.langExcl = append(p.langExcl, strings.Split(v, ",")...)
		case name == "--btfgate-rules":
			v, err := next()
			if err != nil {
				return nil, err
			}
			p.rulesFile = v
		case features.ApplyOption(a, &p.set):
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, fmt.Errorf("pahole option %s is not supported by btfgate (it encodes BTF only; see docs/pahole-compat.md)", a)
		default:
			p.files = append(p.files, a)
		}
	}
	if env := os.Getenv("PAHOLE_LANG_EXCLUDE"); env != "" && len(p.langExcl) == 0 {
		p.langExcl = strings.Split(env, ",")
	}
	if p.rulesFile == "" {
		p.rulesFile = os.Getenv(rulesEnv)
	}
	return p, nil
}

// isPahole reports whether the program was started under the name pahole.
func isPahole(argv0 string) bool { return filepath.Base(argv0) == "pahole" }

// paholeStyle reports whether a command line is meant for pahole: it
// starts with one of the pahole options the front end takes, as kbuild's
// "btfgate --version" and "btfgate -J ..." (make PAHOLE=btfgate) do.
// Anything else ("btfgate -v", "btfgate --foo", "btfgate --help") is
// btfgate's own command line, whose errors name btfgate's commands.
func paholeStyle(args []string) bool {
	return len(args) > 0 && paholeOption(args[0])
}

// paholeOption reports whether a is an option parsePaholeArgs takes.
func paholeOption(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	switch name {
	case "-J", "--btf_encode", "-V", "--verbose", "-JV", "-VJ", "--version", "--supported_btf_features",
		"-j", "--jobs", "--btf_features", "--btf_features_strict", "--btf_encode_detached", "--btf_base",
		"--lang_exclude", "--btfgate-rules":
		return true
	}
	if strings.HasPrefix(a, "-j") && len(a) > 2 && !strings.HasPrefix(a, "--") {
		return true
	}
	var scratch features.Set
	return features.ApplyOption(a, &scratch)
}

// runPahole is the pahole-compatible front end: "pahole -J [options] FILE"
// writes .BTF into FILE, "--btf_encode_detached=OUT" writes raw BTF.
func runPahole(args []string, stdout, stderr io.Writer) error {
	if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
		fmt.Fprintln(stdout, paholeUsage)
		return nil
	}
	p, err := parsePaholeArgs(args, stderr)
	if err != nil {
		return err
	}
	if p.version {
		fmt.Fprintln(stdout, paholeVersion)
		return nil
	}
	if p.supported {
		fmt.Fprintln(stdout, strings.Join(features.Names(), ","))
		return nil
	}
	if !p.encode {
		return fmt.Errorf("btfgate's pahole front end only encodes BTF: give -J or --btf_encode_detached=FILE")
	}
	if len(p.files) != 1 {
		return fmt.Errorf("want one input file, got %d", len(p.files))
	}
	input := p.files[0]
	cfg := engine.Config{Features: p.set, CacheDir: policyCacheDir()}
	var r *rules.Rules
	if p.rulesFile != "" {
		var err error
		if r, err = rules.Load(p.rulesFile); err != nil {
			return err
		}
		files, err := r.PolicyFiles()
		if err != nil {
			return err
		}
		for _, f := range files {
			src, err := inputs.ReadFile(f, inputs.PolicyCap, "policy module")
			if err != nil {
				return fmt.Errorf("policy: %w", err)
			}
			cfg.Modules = append(cfg.Modules, engine.Module{Name: f, Source: string(src)})
		}
		cfg.Data, cfg.NoDefault = r.Data, r.NoDefaultPolicies
	}
	outs := outputs.New(input, p.base, p.rulesFile)
	defer outs.Abort()
	if r != nil {
		if err := outs.AddInputs(r.InputFiles()...); err != nil {
			return err
		}
	}
	stopSignals := outs.CatchSignals()
	defer stopSignals()
	if p.detached != "" {
		if err := outs.Add("--btf_encode_detached", p.detached); err != nil {
			return err
		}
	} else if err := outs.AddInPlace(input); err != nil {
		return err
	}
	reports, err := kbuildReportFiles(outs, input)
	if err != nil {
		return err
	}
	confirmThreads(input, othersRunnable)
	start := time.Now()
	opts := encode.Options{Features: p.set, Jobs: p.jobs, LangExclude: p.langExcl, Detail: reports != nil}
	opts.BasePath = p.base // loaded beside the input's opening
	if p.base != "" {
		opts.BaseCache = baseCache("") // $BTFGATE_BASE_CACHE
	}
	setMemoryLimit(input, p.jobs)
	opts.Opened = raiseForMerge
	opts.Decoded = decodedRelease(input)
	progress, stopProgress := newProgress(stderr) // a terminal only: nothing in a kernel build
	opts.Progress = progress
	res, err := encodeWith(input, engine.Start(contextBackground(), cfg), r, opts)
	stopProgress()
	if err != nil {
		return err
	}
	if err := outs.AddInputs(res.Attached...); err != nil {
		return err
	}
	if !p.verbose {
		res.BaseCacheError = nil // a kernel build's modules would each say it
	}
	writeWarnings(stderr, res)
	if p.verbose {
		writeVerbose(stdout, res)
	}
	if r != nil {
		rulesChanged(stderr, input, p.rulesFile, res)
	}
	if p.detached != "" {
		// pahole ignores distilled_base for detached output (spec §1.2).
		raw, err := marshalBTF(res.Types, res.ByteOrder, p.set.Layout)
		if err != nil {
			return fmt.Errorf("%s: marshal: %w", input, err)
		}
		if err := outs.Write(p.detached, raw, 0o640); err != nil {
			return err
		}
		if reports != nil {
			if err := reports.write(outs, input, p.detached, p.set, res, len(raw), time.Since(start)); err != nil {
				return err
			}
		}
		return outs.Commit()
	}
	secs, err := btfSections(res, p.set.DistilledBase, p.set.Layout)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	data, err := os.ReadFile(input)
	if err != nil {
		return err
	}
	edited, err := elfedit.Edit(input, data, secs...)
	if err != nil {
		return err
	}
	if err := outs.Write(input, edited, 0); err != nil {
		return err
	}
	if reports != nil {
		if err := reports.write(outs, input, input, p.set, res, len(secs[0].Data), time.Since(start)); err != nil {
			return err
		}
	}
	return outs.Commit()
}

// btfSections is what goes into an ELF file: .BTF, and for split BTF with
// distilled_base, .BTF against a distilled base plus that base as .BTF.base.
func btfSections(res *encode.Result, distilled, layout bool) ([]elfedit.Section, error) {
	types := res.Types
	var secs []elfedit.Section
	if distilled && types.Base != nil {
		base, split, err := btf.DistillBase(types)
		if err != nil {
			return nil, err
		}
		braw, err := base.Marshal(res.ByteOrder)
		if err != nil {
			return nil, err
		}
		types = split
		secs = append(secs, elfedit.Section{Name: ".BTF.base", Data: braw})
	}
	raw, err := marshalBTF(types, res.ByteOrder, layout)
	if err != nil {
		return nil, err
	}
	return append([]elfedit.Section{{Name: ".BTF", Data: raw}}, secs...), nil
}

// marshalBTF writes raw BTF, with the kind layout section when layout is
// on (base BTF only, as pahole).
func marshalBTF(types *btf.Types, order binary.ByteOrder, layout bool) ([]byte, error) {
	if layout {
		return types.MarshalLayout(order)
	}
	return types.Marshal(order)
}

// paholeUsage is the help of the pahole front end.
const paholeUsage = `Usage: btfgate pahole [pahole options] FILE   (or btfgate started as pahole)

Accepts pahole's BTF options: -J writes .BTF into FILE, --btf_encode_detached=OUT
writes raw BTF; --btf_features, --btf_features_strict, --btf_base, -j[N],
--lang_exclude, -V, --version and the legacy --skip_encoding_btf_* flags work
as in pahole v1.31. A symlink named pahole to btfgate behaves the same.
Policy for kernel builds: --btfgate-rules=FILE in PAHOLE_FLAGS, or the
BTFGATE_RULES environment variable.

Examples:
  btfgate pahole -J --btf_features=default -j vmlinux
  btfgate pahole --btf_features=default --btf_base vmlinux --btf_encode_detached=ext4.btf ext4.ko
  make PAHOLE=btfgate          # kbuild runs "btfgate --version", then "btfgate -J ..."`

func newPaholeCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "pahole [pahole options] FILE",
		Short:              "pahole-compatible front end for kernel builds (-J, --btf_features, --btf_base, ...)",
		Long:               paholeUsage,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPahole(args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
}
