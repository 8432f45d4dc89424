package encode

import (
	"fmt"
	"sync"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/functions"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/elffile"
)

// encoder runs one encode, a method per phase, in order, on the goroutine
// that called Encode. A phase leaves what the next ones need in the
// encoder's fields; work that runs beside the phases on goroutines of its
// own (the base BTF, the ELF side, the unit walks, the dedup, the variable
// decisions) takes its inputs when it starts and hands its result back
// through a future.
type encoder struct {
	path string
	opts Options
	res  *Result

	// read
	in       *loader.Input
	excluded map[uint64]bool // DW_LANG values the language exclusion leaves out

	// decode
	fo     functions.Options
	side   *future[elfSide] // read beside the first units' walks
	all    *btf.Types       // the units spliced in order, then functions and sections
	pipe   *dedupPipe       // the dedup beside the phases; nil with DecideOnly
	policy func() (*engine.Engine, error)
	vars   *varDecider // decides variables beside the walks
	elf    *loader.ElfFuncs
	states [][]functions.State // each unit's, in unit order
	known  int                 // types the splicer dropped as copies of earlier ones
	// dropKnown makes the splicer drop types known from earlier units;
	// splicer is kept for the check after the dedup.
	dropKnown bool
	splicer   *btf.Splicer
	uv        unitVars

	// facts
	groups *functions.Groups

	// decide
	include []bool               // per group: it goes in
	extra   [][]loader.FuncAnnot // per group: the decl tags policies add
	vo      varOutcome           // the variables that go in
	refused bool                 // deny rules refused outcomes; the decisions are complete
}

func newEncoder(path string, opts Options) *encoder {
	opts.Jobs = workers(opts.Jobs)
	e := &encoder{path: path, opts: opts, res: &Result{}}
	// The engine, once, for whichever asks first (the variable
	// goroutine's first chunk or the decide phase): Policy, WaitPolicy's
	// (which a caller compiles beside the read), or the default policies.
	e.policy = sync.OnceValues(func() (*engine.Engine, error) { return policyOf(opts) })
	return e
}

// run runs the phases, timing each into Result.Phases: with DecideOnly,
// up to the decisions.
func (e *encoder) run() (*Result, error) {
	type phase struct {
		name string
		run  func() error
	}
	decode := func() error {
		if err := e.decode(); err != nil {
			return err
		}
		if e.opts.Decoded != nil {
			e.opts.Decoded()
		}
		return nil
	}
	phases := []phase{{"read", e.read}, {"decode+convert", decode}, {"facts", e.facts}, {"policy", e.decide}}
	if !e.opts.DecideOnly {
		phases = append(phases, phase{"functions", e.functions}, phase{"dedup", e.dedup})
	}
	clock := time.Now()
	for _, ph := range phases {
		if err := ph.run(); err != nil {
			if e.refused && e.opts.DecideOnly {
				e.res.Types = e.all
				return e.res, err
			}
			return nil, err
		}
		now := time.Now()
		e.res.Phases = append(e.res.Phases, Phase{ph.name, now.Sub(clock)})
		clock = now
	}
	if e.opts.DecideOnly {
		e.res.Types = e.all
		return e.res, nil
	}
	if err := validateOutput(e.path, e.res); err != nil {
		return nil, err
	}
	return e.res, nil
}

// close waits for the goroutines still running (after an error) and
// closes the input they read.
func (e *encoder) close() {
	if e.vars != nil {
		e.vars.abandon()
	}
	if e.pipe != nil {
		e.pipe.wait()
	}
	if e.side != nil {
		e.side.wait() // it reads the mapping in.Close unmaps
	}
	if e.in != nil {
		e.in.Close()
	}
}

// read opens the input, beside the loading of its base BTF.
func (e *encoder) read() error {
	opts := &e.opts
	base := loadBaseBeside(*opts)
	lim := elffile.DefaultLimits()
	if opts.MaxInflation > 0 {
		lim.MaxInflation = opts.MaxInflation
	}
	in, err := loader.OpenWith(e.path, loader.OpenOptions{Supplement: opts.Supplement, Limits: lim})
	b, berr := base.wait()
	if berr != nil { // the base's error first, as when it was loaded first
		err = berr
	}
	opts.Base = b.types
	if err != nil {
		if in != nil {
			in.Close()
		}
		return err
	}
	e.in = in
	res := e.res
	res.BaseCached = b.how.hit
	if b.how.writeErr != nil {
		res.BaseCacheError = fmt.Errorf("base cache %s not written: %w", opts.BaseCache.Dir(), b.how.writeErr)
	}
	if opts.Base != nil && opts.Base.SourceByteOrder() != in.ELF.ByteOrder {
		return fmt.Errorf("%s: the input is %s, but its base BTF %s is %s", e.path, endianness(in.ELF.ByteOrder), opts.BasePath, endianness(opts.Base.SourceByteOrder()))
	}
	in.KeepInfo = opts.keepInfo
	if in.Supplement != "" {
		res.Attached = append(res.Attached, in.Supplement)
	}
	res.Attached = append(res.Attached, in.Split...)
	res.ByteOrder = in.ELF.ByteOrder
	if opts.Opened != nil {
		opts.Opened(in.Merge, in.InfoSize)
	}
	e.excluded, err = languages(opts.LangExclude)
	return err
}

// decode walks and converts the units and splices them in order (see
// convertUnits), with the ELF side read, the dedup's first passes and the
// variable decisions beside.
func (e *encoder) decode() error {
	in := e.in
	e.fo = functions.Options{Arch: loader.ArchFor(in.ELF.Machine),
		TrueSignature: e.opts.Features.TrueSignature, Relocatable: in.ELF.Type == elffile.ET_REL}
	e.side = readELFSide(in, e.opts)
	e.all = btf.NewTypes(btf.NewStrings())
	if e.opts.Base != nil {
		e.all = btf.NewSplitTypes(e.opts.Base)
	}
	// The dedup's primitive and struct passes run beside the decode, unit
	// by unit as they are spliced, and beside facts, policy and functions.
	if !e.opts.DecideOnly {
		words, types := reservation(in)
		if e.opts.Base != nil {
			// The dedup's per-id arrays span the base's ids too, which a
			// module's dedup leaves untouched (zero pages) unless the
			// arrays grow: then they are copied whole. An estimate a
			// little short would cost that copy, room to spare costs
			// nothing.
			types += types/4 + 1024
		}
		e.pipe = startDedupPipe(e.all, int(e.all.NextID())+types, words, e.opts.folds(in.InfoSize))
	}
	e.vars = newVarDecider(e.policy)
	skippedRefs, err := e.convertUnits()
	sd, serr := e.side.wait()
	if serr != nil {
		return serr // the ELF's error first, as when it was read first
	}
	if err != nil {
		return err
	}
	e.elf = sd.elf
	if e.pipe != nil {
		e.pipe.close()
		e.foldAfterDecode()
	}
	// After the fold: the collection also frees the folded words' array,
	// which the heap would otherwise count as live until the next one (the
	// policies' memory limit is set from the heap, engine.Limits).
	collectBetweenPhases(in.InfoSize)
	e.res.Units = len(in.Units)
	if in.Groups != nil { // dwz's partial units are walked with their importers
		e.res.Units = len(in.Groups)
	}
	if skippedRefs > 0 {
		e.res.Warnings = append(e.res.Warnings, fmt.Sprintf("%d type references into compile units left out "+
			"by the language exclusion read as void, as in pahole", skippedRefs))
	}
	in.ReleaseDebug()
	return nil
}

// facts groups the saved function states by ELF base name and builds the
// facts of each group.
func (e *encoder) facts() error {
	e.groups = functions.Group(e.all, e.elf, e.states, e.opts.Features)
	e.states = nil // the groups hold them, sorted
	e.res.Functions = e.groups.Facts(e.in.SectionName, e.opts.Detail)
	return nil
}

// decide runs the policies on functions and variables. When deny rules
// refuse outcomes, one error names them all, and e.refused says the
// decisions are complete.
func (e *encoder) decide() error {
	pol, err := e.policy()
	if err != nil {
		return err
	}
	e.vars.flush(e.uv.facts)
	err = e.decideFunctions(pol)
	fnRefused := refusal(err)
	if err != nil && (fnRefused == nil || e.res.Decisions == nil) {
		return fmt.Errorf("%s: policy: %w", e.path, err)
	}
	e.res.Variables = e.uv.facts
	e.vo, err = decideVariables(e.vars, e.uv, e.opts, e.res)
	varRefused := refusal(err)
	if err != nil && (varRefused == nil || e.res.VarDecisions == nil) {
		return fmt.Errorf("%s: policy: %w", e.path, err)
	}
	if fnRefused == nil && varRefused == nil {
		return nil
	}
	// Deny rules refuse outcomes of functions, variables or both: one
	// error names them all.
	var vs []engine.Violation
	for _, r := range []*engine.ViolationsError{fnRefused, varRefused} {
		if r != nil {
			vs = append(vs, r.Violations...)
		}
	}
	e.refused = true
	return fmt.Errorf("%s: policy: %w", e.path, &engine.ViolationsError{Violations: vs})
}

// functions appends the functions, the variables' decl tags and the
// DATASECs that go in.
func (e *encoder) functions() error {
	collectBetweenPhases(e.in.InfoSize) // what the policies left
	if err := e.groups.Emit(e.include, e.extra); err != nil {
		return fmt.Errorf("%s: %w", e.path, err)
	}
	addVarTags(e.all, e.vo.tags)
	if dropped := emitDatasecs(e.all, e.vo.datasecs, e.in.ELF.Sections); len(dropped) > 0 {
		e.res.DroppedEntries = len(dropped)
		e.res.Warnings = append(e.res.Warnings, overlapWarning(e.all, dropped))
	}
	if err := e.all.Err(); err != nil { // a type BTF cannot hold (too many parameters, variables)
		return fmt.Errorf("%s: %w", e.path, err)
	}
	e.res.Before, e.res.Known = e.all.Len()+e.known, e.known
	return nil
}

// dedup finishes the dedup the pipe ran beside the phases, and leaves out
// the VARs the policies dropped.
func (e *encoder) dedup() error {
	deduped, run, err := e.pipe.finish()
	if err != nil {
		return fmt.Errorf("%s: dedup: %w", e.path, err)
	}
	if e.known > 0 {
		// A dedup that started over went in libbpf's order on the spliced
		// types, which is not the order on all of them.
		if run.dd.Restarted != "" {
			return errKnownUnsure{"a dedup that started over in libbpf's order: " + run.dd.Restarted}
		}
		if name, unsure := e.splicer.KnownUnsure(deduped); unsure {
			return errKnownUnsure{fmt.Sprintf("%q, a name with several definitions", name)}
		}
	}
	res := e.res
	res.DedupRestarted = run.dd.Restarted
	res.Overlapped = append(res.Overlapped, Phase{"dedup passes beside decode", run.busy})
	res.Types = deduped
	if e.vo.dropped > 0 {
		if res.Types, err = dropVars(deduped, e.vo.drop); err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
	}
	return nil
}
