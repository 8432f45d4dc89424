package encode

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/convert"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/functions"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// convertUnits walks and converts every compile unit on opts.Jobs workers
// and splices the fragments into dst strictly in unit order. At most 2×jobs
// fragments wait to be spliced, which bounds memory. The units of an input
// pahole merges (loader.Input.Merge) are walked and converted as one. It
// also returns the number of references that read as void because they
// point into a unit the language exclusion left out of a merge.
//
// It leaves the saved function states in e.states and the variables'
// facts and DATASEC entries in e.uv, and hands the variables' facts to
// e.vars and each spliced View to e.pipe (if not nil) as their units are
// spliced.
func (e *encoder) convertUnits() (int, error) {
	in, opts, fo, side, excluded, dst := e.in, e.opts, &e.fo, e.side, e.excluded, e.all
	jobs, procs := opts.Jobs, runtime.GOMAXPROCS(0)
	if !opts.walkAll {
		jobs = decodeWorkers(jobs, in.InfoSize, procs)
	}
	e.res.Threads, e.res.Walkers = procs, jobs
	units := unitJobs(in)
	type result struct {
		frag    *btf.Fragment
		states  []functions.State
		infos   []secinfo
		vars    []facts.Variable
		skipped int
		locEnd  uint64 // walker.LocationsRead
	}
	slots := make([]*future[result], len(units))
	for i := range slots {
		slots[i] = newFuture[result]()
	}
	window := make(chan struct{}, 2*jobs) // tokens for units in flight
	free := make(chan spliced, 2*jobs+2)  // for reuse
	next := make(chan int)
	stop := make(chan struct{})
	walkOpts := loader.WalkOptions{TypeTags: opts.Features.TypeTag, DeclTags: opts.Features.DeclTag,
		TrueSignature: opts.Features.TrueSignature, Arch: fo.Arch}
	convOpts := convert.Options{Float: opts.Features.Float, Enum64: opts.Features.Enum64}
	strSecs := btf.IndexStringSections(append([][]byte{in.DebugStr, in.DebugLineStr}, in.PartStrings...)...) // shared by the workers and the splicer
	// From namesBesideFrom walkers on as many CPUs the workers map the
	// names the splicer has met.
	var names *btf.NameHints
	if e.dropKnown && (min(jobs, procs) >= namesBesideFrom || opts.namesBeside) {
		names = &btf.NameHints{}
	}

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
			unit := func(i int) (r result, err error) {
				defer elffile.GuardFaults(in.Path, &err)()
				u := units[i].unit
				if units[i].merged == nil && !wantUnit(u) {
					return result{}, nil
				}
				if err := units[i].walk(walker, &tab, excluded); err != nil {
					return result{}, withPath(in.Path, err)
				}
				if units[i].merged == nil && excluded[u.Language] {
					return result{}, nil
				}
				sd, err := side.wait()
				if err != nil {
					return result{}, err
				}
				var reuse spliced
				select {
				case reuse = <-free:
				default:
				}
				cv, err := filterVars(&tab, sd.vs, reuse.vars)
				if err != nil {
					return result{}, err
				}
				frag, err := conv.Convert(&tab, cv.vars, reuse.frag)
				if err != nil {
					return result{}, fmt.Errorf("%s: %w", in.Path, err)
				}
				if e.dropKnown {
					frag.PrepareKnown(reuse.frag, names)
				}
				states := functions.Save(&tab, i, sd.elf, fo)
				return result{frag: frag, states: states, infos: cv.infos, vars: cv.facts, skipped: walker.SkippedRefs(),
					locEnd: walker.LocationsRead()}, nil
			}
			for i := range next {
				slots[i].resolve(unit(i))
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

	collections := newDecodeCollections(in.InfoSize)
	splicer := btf.NewSplicer(dst, strSecs)
	if e.dropKnown {
		splicer.DropKnown()
	}
	if names != nil {
		splicer.ShareNames(names)
	}
	e.splicer = splicer
	splicer.Grow(reservation(in))
	var got unitResults
	var datasecs []datasecEntry
	var firstErr error
	skipped := 0
	for i := range units {
		r, err := slots[i].wait()
		<-window
		if opts.Progress != nil {
			opts.Progress(i+1, len(units))
		}
		if firstErr != nil {
			continue
		}
		if err != nil {
			firstErr = err
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
		functions.Globalize(r.states, shift, splicer.Intern)
		// The units up to this one are read, and nothing taken from them
		// points into .debug_info any more (splicing and Globalize copy
		// the names read inline): its pages there can go.
		in.ReleaseInfoBefore(units[i].end)
		collections.spliced(units[i].end)
		in.ReleaseLocationsBefore(r.locEnd)
		if u := units[i].lastUnit(); u.Part == 0 {
			in.ReleaseAbbrevBefore(u.AbbrevOffset)
		}
		if e.pipe != nil {
			e.pipe.publish(dst)
		}
		firstVar := got.nvars()
		for k := range r.vars {
			r.vars[k].ID = firstVar + k
		}
		got.addVars(r.vars, e.vars.add)
		for _, si := range r.infos {
			datasecs = append(datasecs, datasecEntry{section: si.section, fact: firstVar + si.fact, info: btf.VarSecinfo{
				Type: r.frag.VarIDs[si.varIdx] + tailShift, Offset: si.offset, Size: si.size}})
		}
		clear(r.vars) // copied by addVars; the strings need not stay
		select {
		case free <- spliced{r.frag, r.vars[:0]}:
		default:
		}
		got.addStates(r.states)
		skipped += r.skipped
	}
	// Workers never block on slots; closing stop ends
	// the feeder, which closes next and lets the workers return.
	wg.Wait()
	e.states, e.uv, e.known = got.states, unitVars{got.allVars(), datasecs}, splicer.Dropped()
	return skipped, firstErr
}

// spliced is what a spliced unit's result leaves for a later unit's
// worker to fill again: its fragment and its variables' facts buffer.
type spliced struct {
	frag *btf.Fragment
	vars []facts.Variable
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
// splicer's arrays and the dedup's, so that they are not regrown: a word
// per 4 bytes of .debug_info, and a type per 46 bytes for a kernel or 38
// for a module (relocatable), cover what kernels and modules give
// (docs/performance.md); arrays grow when needed. A module's dedup arrays
// hold the base's types too, so regrowing them copies the kernel's share.
func reservation(in *loader.Input) (words, types int) {
	perType := 46
	if in.ELF.Type == elffile.ET_REL {
		perType = 38
	}
	return in.InfoSize / 4, in.InfoSize / perType
}
