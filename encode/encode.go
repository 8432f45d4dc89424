package encode

import (
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/loader/elffile"
)

// Options configure an encode.
type Options struct {
	Features features.Set
	Jobs     int // worker goroutines; <= 0 means GOMAXPROCS, clamped to 4 per CPU
	// Policy decides which functions go in; nil means WaitPolicy's, or
	// without it the default policies (pahole's rules) with Features.
	Policy *engine.Engine
	// WaitPolicy, if set and Policy is nil, returns the policy engine; it
	// is called once the input is decoded, so that a caller can compile
	// the policies beside the read (engine.Start).
	WaitPolicy func() (*engine.Engine, error)
	// Detail keeps every parameter's facts in Functions and every
	// instance's facts in Instances (for reports and explain).
	Detail bool
	// DecideOnly stops after the decisions: Result.Types is the
	// undeduplicated type graph without functions. When deny rules refuse
	// outcomes, the error wraps the *engine.ViolationsError and the Result
	// comes back with it, its Decisions complete, for callers that explain
	// what was refused.
	DecideOnly bool
	// Base, if set, makes the output split BTF on it (a kernel module on
	// vmlinux's BTF): ids continue after the base's, strings and types the
	// base holds are not repeated.
	Base *btf.Types
	// BasePath, when Base is nil, names the base BTF (raw, or an ELF with a
	// .BTF section) to load, beside the opening of the input.
	BasePath string
	// BaseCache, if set, keeps BasePath's base prepared for the next
	// encodes on it (see BaseCache).
	BaseCache *BaseCache
	// MaxInflation bounds what the input's compressed sections may claim
	// decompressed, as a multiple of its size (0: elffile's default, see
	// elffile.Limits).
	MaxInflation uint64
	// LangExclude skips compile units whose DW_AT_language is one of these
	// (pahole's --lang_exclude names, e.g. "rust").
	LangExclude []string
	// Supplement names the supplementary object file of an input processed
	// with dwz -m, instead of the one its .gnu_debugaltlink or .debug_sup
	// names (loader.OpenOptions).
	Supplement string
	// Progress, if set, is called from one goroutine as compile units are
	// spliced, in order: done of total units. It must return quickly. An
	// encode done a second time (Result.KnownRedone) counts from 1 again.
	Progress func(done, total int)
	// Opened, if set, is called once, when the input is open, before its units
	// are walked, with whether they are walked as one (an LTO input, see
	// loader.Input.Merge) and the size of .debug_info. The merged walk of
	// an input holds all its DIEs at once: at its peak about MergedHeap
	// bytes of Go heap per byte of .debug_info, which a caller that sets a
	// memory limit adds to it.
	Opened func(merged bool, debugInfo int)
	// Decoded, if set, is called from the encode's goroutine when the
	// units are walked, converted and spliced, before the policy
	// decisions and the dedup's end: once, or twice for an encode done a
	// second time (Result.KnownRedone).
	Decoded func()

	// keepInfo keeps a module's relocated .debug_info whole until the
	// encode returns (loader.Input.KeepInfo), for tests.
	keepInfo bool
	// foldAlways folds the types of an input without a base whatever the
	// size of its .debug_info (see foldFrom), for tests.
	foldAlways bool
	// walkAll walks units on all Jobs workers whatever the size of the
	// input's .debug_info (see decodeWorkers), for tests.
	walkAll bool
	// namesBeside has the workers map names beside the splice whatever
	// the number of CPUs (see namesBesideFrom), for tests.
	namesBeside bool
}

// Result is the encoded BTF and what it took.
type Result struct {
	Types  *btf.Types // after dedup
	Phases []Phase    // wall time per phase, in order
	Units  int        // compile units walked; dwz's partial units, walked with their importers, not counted
	Before int        // types before dedup
	// Known is how many of them were dropped before the dedup as copies of
	// earlier units' types (btf.Splicer.DropKnown); the output is the same.
	Known int
	// Threads is the CPUs the encode ran on (GOMAXPROCS as it decoded),
	// Walkers how many of its workers walked and converted units: fewer
	// than Options.Jobs for a small input or on one CPU (decodeWorkers).
	// The output depends on neither.
	Threads, Walkers int
	// Overlapped is work that ran on goroutines of its own beside Phases
	// (not counted in them): its busy time.
	Overlapped []Phase
	// DedupRestarted says why the pipelined dedup had to start over in
	// libbpf's order (see btf.Deduplication), "" if it did not: the output
	// is the same, it only took longer.
	DedupRestarted string
	// KnownRedone says why the encode was done a second time without
	// dropping types known from earlier units (btf.Splicer.DropKnown), ""
	// if it was not: the output is the same, it only took longer.
	KnownRedone string
	// FoldedTypes is how many spliced types the encode folded into their
	// canonical types once the dedup had decided them (see foldFrom), and
	// Folded how many bytes of their words it gave back to the system; 0
	// when it did not fold.
	FoldedTypes, Folded int
	// ByteOrder is the input ELF's; write the BTF in it.
	ByteOrder binary.ByteOrder
	Functions []facts.Function
	Decisions []engine.Decision // one per function group, same order
	// Variables are the facts of every variable with a static address,
	// VarDecisions the policies' decision on each, same order.
	Variables    []facts.Variable
	VarDecisions []engine.Decision
	// Instances holds, with Options.Detail, every instance of each group.
	Instances [][]facts.Instance
	// AnnotationsDropped says why the decl tags policies asked for
	// (Decision.Annotations) are not in the BTF: DeclTagOff, or "".
	AnnotationsDropped string
	// DroppedEntries counts the DATASEC entries left out because they
	// overlap an earlier entry (pahole 1.31 writes them; the kernel refuses
	// them).
	DroppedEntries int
	// Attached are the files read with the input because its DWARF
	// continues in them: a dwz supplement, split DWARF objects.
	Attached []string
	// Warnings are things the encode did not do as asked, for people.
	Warnings []string
	// Unmatched are the configuration list entries that matched no
	// function (engine.Engine.Unmatched).
	Unmatched []engine.Unmatched
	// BaseCached says the base came prepared from Options.BaseCache;
	// BaseCacheError, that it could not be stored there (the encode is
	// not affected).
	BaseCached     bool
	BaseCacheError error
}

// Phase is the wall time of one step.
type Phase struct {
	Name     string
	Duration time.Duration
}

// Encode reads path and returns its deduplicated BTF.
//
// The input is mapped: a fault on it (the file truncated while it is
// encoded) is an *elffile.FaultError, on this goroutine as on the
// workers.
func Encode(path string, opts Options) (res *Result, err error) {
	defer elffile.GuardFaults(path, &err)()
	return encodeFile(path, opts)
}

func encodeFile(path string, opts Options) (*Result, error) {
	// Only a kernel, not split BTF: a module's units repeat fewer types,
	// the pass costs more than the dedup saves there (mlx5_core.ko +15 %
	// CPU), and several of the largest modules would need the second run
	// (docs/performance.md, session 11).
	dropKnown := opts.Base == nil && opts.BasePath == ""
	res, err := encodeOnce(path, opts, dropKnown)
	var unsure errKnownUnsure
	if !errors.As(err, &unsure) {
		return res, err
	}
	// The first encode's memory is garbage now: collect it, so that the
	// second reuses it rather than adding to the peak (small inputs run
	// with the collector off, cmd/btfgate/memlimit.go).
	runtime.GC()
	// The caller heard once that the input is open (a second call would
	// raise a memory limit twice); Progress counts the units again.
	opts.Opened = nil
	if res, err = encodeOnce(path, opts, false); res != nil {
		res.KnownRedone = unsure.why
	}
	return res, err
}

// encodeOnce runs one encode, dropping types known from earlier units
// when dropKnown is set.
func encodeOnce(path string, opts Options, dropKnown bool) (*Result, error) {
	e := newEncoder(path, opts)
	e.dropKnown = dropKnown
	defer e.close()
	return e.run()
}

// errKnownUnsure stops an encode that dropped known types when its dedup
// might differ from that of all the types (btf.Splicer.KnownUnsure).
type errKnownUnsure struct{ why string }

func (e errKnownUnsure) Error() string { return "dropped types reach " + e.why }

// policyOf returns the engine that decides for an encode with opts.
func policyOf(opts Options) (*engine.Engine, error) {
	switch {
	case opts.Policy != nil:
		return opts.Policy, nil
	case opts.WaitPolicy != nil:
		return opts.WaitPolicy()
	}
	return engine.New(context.Background(), engine.Config{Features: opts.Features})
}
