package encode

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/convert"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
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
	// spliced, in order: done of total units. It must return quickly.
	Progress func(done, total int)
	// Opened, if set, is called once the input is open, before its units
	// are walked, with whether they are walked as one (an LTO input, see
	// loader.Input.Merge) and the size of .debug_info. The merged walk of
	// an input holds all its DIEs at once: at its peak about MergedHeap
	// bytes of Go heap per byte of .debug_info, which a caller that sets a
	// memory limit adds to it.
	Opened func(merged bool, debugInfo int)

	// keepInfo keeps a module's relocated .debug_info whole until the
	// encode returns (loader.Input.KeepInfo), for tests.
	keepInfo bool
}

// Result is the encoded BTF and what it took.
type Result struct {
	Types  *btf.Types // after dedup
	Phases []Phase    // wall time per phase, in order
	Units  int        // compile units walked
	Before int        // types before dedup
	// Overlapped is work that ran on goroutines of its own beside Phases
	// (not counted in them): its busy time.
	Overlapped []Phase
	// DedupRestarted says why the pipelined dedup had to start over in
	// libbpf's order (see btf.Deduplication), "" if it did not: the output
	// is the same, it only took longer.
	DedupRestarted string
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
	opts.Jobs = workers(opts.Jobs)
	res := &Result{}
	clock := time.Now()
	lap := func(name string) {
		now := time.Now()
		res.Phases = append(res.Phases, Phase{name, now.Sub(clock)})
		clock = now
	}

	base := loadBaseBeside(opts)
	lim := elffile.DefaultLimits()
	if opts.MaxInflation > 0 {
		lim.MaxInflation = opts.MaxInflation
	}
	in, err := loader.OpenWith(path, loader.OpenOptions{Supplement: opts.Supplement, Limits: lim})
	if opts.Base, err = base.wait(err); err != nil {
		if in != nil {
			in.Close()
		}
		return nil, err
	}
	res.BaseCached = base.how.hit
	if base.how.writeErr != nil {
		res.BaseCacheError = fmt.Errorf("base cache %s not written: %w", opts.BaseCache.Dir(), base.how.writeErr)
	}
	defer in.Close()
	if opts.Base != nil && opts.Base.SourceByteOrder() != in.ELF.ByteOrder {
		return nil, fmt.Errorf("%s: the input is %s, but its base BTF %s is %s", path, endianness(in.ELF.ByteOrder), opts.BasePath, endianness(opts.Base.SourceByteOrder()))
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
	excluded, err := languages(opts.LangExclude)
	if err != nil {
		return nil, err
	}
	lap("read")

	fo := &cuFuncOptions{arch: loader.ArchFor(in.ELF.Machine),
		trueSignature: opts.Features.TrueSignature, relocatable: in.ELF.Type == elffile.ET_REL}
	side := readELFSide(in, opts, fo) // beside the first units' walks
	defer side.wait()                 // it reads the mapping in.Close unmaps
	all := btf.NewTypes(btf.NewStrings())
	if opts.Base != nil {
		all = btf.NewSplitTypes(opts.Base)
	}
	// The dedup's primitive and struct passes run beside the decode, unit
	// by unit as they are spliced, and beside facts, policy and functions.
	var pipe *dedupPipe
	if !opts.DecideOnly {
		words, types := reservation(in)
		pipe = startDedupPipe(all, int(all.NextID())+types, words)
		defer pipe.wait() // on early returns too
	}
	// The policies compile beside the read; the variables are decided
	// beside the walks as their units are spliced.
	policy := sync.OnceValues(func() (*engine.Engine, error) { return policyOf(opts) })
	vd := newVarDecider(policy)
	defer vd.abandon()
	states, uv, skippedRefs, err := convertUnits(in, opts, fo, side, excluded, all, pipe, vd)
	if serr := side.wait(); serr != nil {
		return nil, serr // the ELF's error first, as when it was read first
	}
	if err != nil {
		return nil, err
	}
	elf := fo.elf
	if pipe != nil {
		pipe.close()
	}
	res.Units = len(in.Units)
	if skippedRefs > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d type references into compile units left out "+
			"by the language exclusion read as void, as in pahole", skippedRefs))
	}
	in.ReleaseDebug()
	lap("decode+convert")

	groups := groupStates(all, states, elf, opts.Features, fo.relocatable)
	res.Functions = groupFacts(groups, elf, in.SectionName, opts.Detail)
	lap("facts")
	pol, err := policy()
	if err != nil {
		return nil, err
	}
	include, extra, err := decideGroups(pol, all, groups, elf, in.SectionName, opts, res)
	fnRefused := refusal(err)
	if err != nil && (fnRefused == nil || res.Decisions == nil) {
		return nil, fmt.Errorf("%s: policy: %w", path, err)
	}
	res.Variables = uv.facts
	vo, err := decideVariables(vd, uv, opts, res)
	varRefused := refusal(err)
	if err != nil && (varRefused == nil || res.VarDecisions == nil) {
		return nil, fmt.Errorf("%s: policy: %w", path, err)
	}
	if fnRefused != nil || varRefused != nil {
		// Deny rules refuse outcomes of functions, variables or both:
		// one error names them all.
		var vs []engine.Violation
		for _, r := range []*engine.ViolationsError{fnRefused, varRefused} {
			if r != nil {
				vs = append(vs, r.Violations...)
			}
		}
		err := fmt.Errorf("%s: policy: %w", path, &engine.ViolationsError{Violations: vs})
		if opts.DecideOnly {
			res.Types = all
			return res, err
		}
		return nil, err
	}
	lap("policy")
	if opts.DecideOnly {
		res.Types = all
		return res, nil
	}
	if err := emitFunctions(all, groups, include, extra, elf, opts.Features); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	addVarTags(all, vo.tags)
	if dropped := emitDatasecs(all, vo.datasecs, in.ELF.Sections); len(dropped) > 0 {
		res.DroppedEntries = len(dropped)
		res.Warnings = append(res.Warnings, overlapWarning(all, dropped))
	}
	if err := all.Err(); err != nil { // a type BTF cannot hold (too many parameters, variables)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res.Before = all.Len()
	lap("functions")

	deduped, err := pipe.finish()
	if err != nil { // pipe.dd is nil if the dedup could not be set up
		return nil, fmt.Errorf("%s: dedup: %w", path, err)
	}
	res.DedupRestarted = pipe.dd.Restarted
	res.Overlapped = append(res.Overlapped, Phase{"dedup passes beside decode", pipe.busy})
	res.Types = deduped
	if vo.dropped > 0 {
		if res.Types, err = dropVars(deduped, vo.drop); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	lap("dedup")
	if err := validateOutput(path, res); err != nil {
		return nil, err
	}
	return res, nil
}

// convertUnits walks and converts every compile unit on opts.Jobs workers
// and splices the fragments into dst strictly in unit order. At most 2×jobs
// fragments wait to be spliced, which bounds memory. The units of an input
// pahole merges (loader.Input.Merge) are walked and converted as one. It
// also returns the number of references that read as void because they
// point into a unit the language exclusion left out of a merge.
//
// vd, if not nil, gets the variables' facts as their units are spliced.
func convertUnits(in *loader.Input, opts Options, fo *cuFuncOptions, side *elfSide, excluded map[uint64]bool, dst *btf.Types, pipe *dedupPipe, vd *varDecider) ([]funcState, unitVars, int, error) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	units := unitJobs(in)
	type result struct {
		frag    *btf.Fragment
		states  []funcState
		infos   []secinfo
		vars    []facts.Variable
		skipped int
		err     error
	}
	slots := make([]chan result, len(units))
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	window := make(chan struct{}, 2*jobs)      // tokens for units in flight
	free := make(chan *btf.Fragment, 2*jobs+2) // spliced fragments, for reuse
	next := make(chan int)
	stop := make(chan struct{})
	walkOpts := loader.WalkOptions{TypeTags: opts.Features.TypeTag, DeclTags: opts.Features.DeclTag,
		TrueSignature: opts.Features.TrueSignature, Arch: fo.arch}
	convOpts := convert.Options{Float: opts.Features.Float, Enum64: opts.Features.Enum64}
	strSecs := btf.IndexStringSections(append([][]byte{in.DebugStr, in.DebugLineStr}, in.PartStrings...)...) // shared by the workers and the splicer

	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			walker := loader.NewWalker(in.DWARF, in.ELF.ByteOrder, walkOpts)
			conv := convert.New(convOpts, strSecs)
			var tab loader.TypeTable
			// unit walks and converts unit i; a fault on the mapped input
			// (the file truncated meanwhile) is its error.
			unit := func(i int) (r result) {
				defer elffile.GuardFaults(in.Path, &r.err)()
				u := units[i].unit
				if units[i].merged == nil && !wantUnit(u) {
					return result{}
				}
				err := units[i].walk(walker, &tab, excluded)
				if err != nil {
					return result{err: withPath(in.Path, err)}
				}
				if units[i].merged == nil && excluded[u.Language] {
					return result{}
				}
				if err := side.wait(); err != nil { // fo.elf and side.vs are set after it
					return result{err: err}
				}
				cv, err := filterVars(&tab, side.vs)
				if err != nil {
					return result{err: err}
				}
				var reuse *btf.Fragment
				select {
				case reuse = <-free:
				default:
				}
				frag, err := conv.Convert(&tab, cv.vars, reuse)
				var states []funcState
				if err == nil {
					states = saveStates(&tab, i, fo)
				} else {
					err = fmt.Errorf("%s: %w", in.Path, err)
				}
				return result{frag: frag, states: states, infos: cv.infos, vars: cv.facts, skipped: walker.SkippedRefs(), err: err}
			}
			for i := range next {
				slots[i] <- unit(i)
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range units {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()

	splicer := btf.NewSplicer(dst, strSecs)
	splicer.Grow(reservation(in))
	var states []funcState
	var datasecs []datasecEntry
	var vars []facts.Variable
	var firstErr error
	skipped := 0
	for i := range units {
		r := <-slots[i]
		<-window
		if opts.Progress != nil {
			opts.Progress(i+1, len(units))
		}
		if firstErr != nil {
			continue
		}
		if r.err != nil {
			firstErr = r.err
			close(stop)
			break
		}
		if r.frag == nil {
			continue
		}
		shift, tailShift, err := splicer.Add(r.frag)
		if err != nil {
			firstErr = fmt.Errorf("%s: CU %d: %w", in.Path, i, err)
			close(stop)
			break
		}
		globalize(r.states, shift, splicer.Intern)
		// The units up to this one are read, and nothing taken from them
		// points into .debug_info any more (splicing and globalize copy
		// the names read inline): its pages there can go.
		in.ReleaseInfoBefore(units[i].end)
		if pipe != nil {
			pipe.publish(dst)
		}
		select {
		case free <- r.frag:
		default:
		}
		firstVar := len(vars)
		for k := range r.vars {
			r.vars[k].ID = firstVar + k
		}
		vars = append(vars, r.vars...)
		if vd != nil {
			vd.add(vars)
		}
		for _, si := range r.infos {
			datasecs = append(datasecs, datasecEntry{section: si.section, fact: firstVar + si.fact, info: btf.VarSecinfo{
				Type: r.frag.VarIDs[si.varIdx] + tailShift, Offset: si.offset, Size: si.size}})
		}
		states = append(states, r.states...)
		skipped += r.skipped
	}
	// Slots are buffered, so workers never block on them; closing stop ends
	// the feeder, which closes next and lets the workers return.
	wg.Wait()
	return states, unitVars{vars, datasecs}, skipped, firstErr
}

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

// withPath prefixes err with the input's path unless it is a DWARF decode
// error, which names the file already.
func withPath(path string, err error) error {
	if de := (*dwarf.DecodeError)(nil); errors.As(err, &de) && de.File != "" {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// wantUnit reports whether pahole encodes the unit: compile and partial
// units, and the split units of skeletons (whose .dwo the loader read);
// type and skeleton units carry no types of their own here.
func wantUnit(u *dwarf.Unit) bool {
	switch u.UnitType {
	case dwarf.UTCompile, dwarf.UTPartial, dwarf.UTSplitCompile:
		return true
	}
	return false
}

// reservation is how many type words and types to make room for, in the
// splicer's arrays and the dedup's, so that a kernel's large arrays are
// not regrown: a word per 4 bytes of .debug_info and a type per 46 cover
// what kernels and modules give (docs/performance.md); arrays grow when
// needed.
func reservation(in *loader.Input) (words, types int) { return in.InfoSize / 4, in.InfoSize / 46 }

// baseLoad is a base BTF being loaded on a goroutine of its own.
type baseLoad struct {
	types *btf.Types
	how   baseLoaded
	err   error
	done  chan struct{}
}

// loadBaseBeside starts loading opts.BasePath unless opts.Base is given:
// reading, parsing and indexing the kernel's strings then overlap
// with the mapping and relocating of a module.
func loadBaseBeside(opts Options) *baseLoad {
	b := &baseLoad{types: opts.Base, done: make(chan struct{})}
	if opts.Base != nil || opts.BasePath == "" {
		close(b.done)
		return b
	}
	go func() {
		defer close(b.done)
		if opts.BaseCache != nil {
			b.types, b.how, b.err = opts.BaseCache.load(opts.BasePath)
			return
		}
		if b.types, b.err = LoadBase(opts.BasePath); b.err == nil {
			b.types.Strings.BuildIndex() // the splicer's first lookup would
		}
	}()
	return b
}

// wait returns the base, or the first error: the base's, as when it was
// loaded before the input, else inErr (the input's).
func (b *baseLoad) wait(inErr error) (*btf.Types, error) {
	<-b.done
	if b.err != nil {
		return nil, b.err
	}
	return b.types, inErr
}

// LoadBase reads base BTF for split encoding from path (raw BTF, or an ELF
// file with .BTF such as vmlinux).
func LoadBase(path string) (*btf.Types, error) {
	raw, err := readBase(path)
	if err != nil {
		return nil, err
	}
	return parseBase(path, raw, parseAlone)
}

// parseAlone parses raw BTF that has no base.
func parseAlone(raw []byte) (*btf.Types, error) { return btf.Parse(raw, nil) }

// readBase reads the base BTF at path, its errors named as a base's.
func readBase(path string) ([]byte, error) {
	raw, err := loader.ReadBTF(path)
	if err != nil {
		return nil, fmt.Errorf("base BTF: %w", err)
	}
	return raw, nil
}

// parseBase parses raw, read from path, with parse, its errors named as a
// base's (ReadBTF's name path first).
func parseBase(path string, raw []byte, parse func([]byte) (*btf.Types, error)) (*btf.Types, error) {
	t, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base BTF: %s: %w", path, err)
	}
	return t, nil
}

// languageCodes maps pahole's --lang_exclude names to DW_LANG values.
func languageCodes() map[string]dwarf.Lang {
	return map[string]dwarf.Lang{
		"c89": dwarf.LangC89, "c": dwarf.LangC, "ada83": dwarf.LangAda83, "c_plus_plus": dwarf.LangCPlusPlus,
		"cobol74": dwarf.LangCobol74, "cobol85": dwarf.LangCobol85, "fortran77": dwarf.LangFortran77,
		"fortran90": dwarf.LangFortran90, "pascal83": dwarf.LangPascal83, "modula2": dwarf.LangModula2,
		"java": dwarf.LangJava, "c99": dwarf.LangC99, "ada95": dwarf.LangAda95, "fortran95": dwarf.LangFortran95,
		"pli": dwarf.LangPLI, "objc": dwarf.LangObjC, "objc_plus_plus": dwarf.LangObjCPlusPlus, "upc": dwarf.LangUPC,
		"d": dwarf.LangD, "python": dwarf.LangPython, "opencl": dwarf.LangOpenCL, "go": dwarf.LangGo,
		"modula3": dwarf.LangModula3, "haskell": dwarf.LangHaskell, "c_plus_plus_03": dwarf.LangCPlusPlus03,
		"c_plus_plus_11": dwarf.LangCPlusPlus11, "ocaml": dwarf.LangOCaml, "rust": dwarf.LangRust,
		"c11": dwarf.LangC11, "swift": dwarf.LangSwift, "julia": dwarf.LangJulia, "dylan": dwarf.LangDylan,
		"c_plus_plus_14": dwarf.LangCPlusPlus14, "fortran03": dwarf.LangFortran03, "fortran08": dwarf.LangFortran08,
		"renderscript": dwarf.LangRenderScript, "bliss": dwarf.LangBLISS, "mips_assembler": dwarf.LangMipsAssembler,
	}
}

// languages resolves --lang_exclude names.
func languages(names []string) (map[uint64]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	codes := languageCodes()
	out := map[uint64]bool{}
	for _, n := range names {
		n = strings.TrimSpace(strings.ToLower(n))
		if n == "" {
			continue
		}
		c, ok := codes[n]
		if !ok {
			return nil, fmt.Errorf("unknown language %q in the language exclusion list", n)
		}
		out[uint64(c)] = true
	}
	return out, nil
}
