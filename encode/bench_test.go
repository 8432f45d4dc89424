package encode

// Benchmarks of each encode phase on the corpus kernel, of the whole Encode
// (kernel, and ext4.ko as split BTF). They skip without the corpus (and with
// -short). An operation takes milliseconds to seconds, so run them with a
// fixed number of iterations, repeat, and take medians (benchstat does):
//
//	go test -bench . -run '^$' -benchtime 2x -count 3 ./encode/
//
// Besides ns/op (wall) every benchmark reports cpu-ns/op: the CPU time of
// the whole process (all threads, the GC included) per operation, which is
// what to compare on a shared, loaded machine. MB/s is over .debug_info
// (decode, convert, Encode), the module file (EncodeModule) or the output
// (marshal). Allocations are reported too.
//
// The phases are measured apart on inputs prepared outside the timer, so
// their sum is not the Encode time: Encode overlaps decode and convert with
// splicing, and pays page faults and GC for all of them at once. The test
// binary has no memory limit, unlike the CLI (cmd/btfgate/memlimit.go), so
// it collects less often. The pre-dedup graph the dedup benchmark uses is
// built by the same steps as Encode (buildPipeline);
// TestBenchPipelineMatchesEncode checks that it gives Encode's bytes.

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/btfgate/btfgate/internal/cputime"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/convert"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/functions"
	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/loader"
)

// benchLoop runs op under b.Loop and reports allocations and CPU time per
// operation. Setup done before it is not timed.
func benchLoop(b *testing.B, op func()) {
	b.ReportAllocs()
	runtime.GC()
	n := 0
	cpu := cputime.Process()
	for b.Loop() {
		op()
		n++
	}
	cpu = cputime.Process() - cpu
	if n > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}

// benchCorpus returns the corpus kernel's path, skipping as the corpus
// tests do.
func benchCorpus(b *testing.B) string {
	b.Helper()
	if testing.Short() {
		b.Skip("corpus benchmarks take seconds per operation; skipped with -short")
	}
	return corpus.Vmlinux(b)
}

// The fixtures (all compile units walked, all fragments, ...) take hundreds
// of MB and seconds to build. benchCache keeps only the most recent one, so
// that consecutive benchmarks (and -count repeats) share it and later
// benchmarks do not run with it still on the heap.
var benchCache struct {
	key string
	val any
}

type closer interface{ close() }

func benchFixture[T any](b *testing.B, key string, build func() T) T {
	b.Helper()
	if benchCache.key != key {
		dropBenchFixture()
		v := build()
		benchCache.key, benchCache.val = key, v
	}
	return benchCache.val.(T)
}

func dropBenchFixture() {
	if c, ok := benchCache.val.(closer); ok {
		c.close()
	}
	benchCache.key, benchCache.val = "", nil
	runtime.GC()
}

func openBench(b *testing.B, path string) *loader.Input {
	b.Helper()
	in, err := loader.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkRead is the read phase: open and map the ELF file, extract the
// debug sections and unit headers, decode .symtab, collect the ELF
// functions, read .BTF_ids and index the variables' sections.
func BenchmarkRead(b *testing.B) {
	path := benchCorpus(b)
	opts := Options{Features: features.Default()}
	var units int
	benchLoop(b, func() {
		in, err := loader.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		syms, err := in.ELF.Symbols()
		if err != nil {
			b.Fatal(err)
		}
		elf := loader.CollectElfFuncs(syms)
		if err := loader.MarkBTFIDs(in.ELF, syms, elf); err != nil {
			b.Fatal(err)
		}
		newVarSections(in, syms, opts)
		units = len(in.Units)
		in.Close()
	})
	b.ReportMetric(float64(units), "units")
}

// BenchmarkDecode walks every compile unit into type tables (loader.Walker)
// on 1 and 2 goroutines, releasing each unit's pages after its walk (Encode
// releases them once the unit is spliced), so every operation faults
// .debug_info in from the page cache as an Encode does.
func BenchmarkDecode(b *testing.B) {
	path := benchCorpus(b)
	dropBenchFixture()
	in := openBench(b, path)
	defer in.Close()
	set := features.Default()
	wo := loader.WalkOptions{TypeTags: set.TypeTag, DeclTags: set.DeclTag, TrueSignature: set.TrueSignature,
		Arch: loader.ArchFor(in.ELF.Machine)}
	for _, jobs := range []int{1, 2} {
		b.Run(jobsName(jobs), func(b *testing.B) {
			b.SetBytes(int64(in.InfoSize))
			var entries atomic.Int64
			benchLoop(b, func() {
				entries.Store(0)
				var next atomic.Int64
				var wg sync.WaitGroup
				errs := make([]error, jobs)
				for w := 0; w < jobs; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						walker := loader.NewWalker(in.DWARF, in.ELF.ByteOrder, wo)
						var tab loader.TypeTable
						n := 0
						for {
							i := int(next.Add(1) - 1)
							if i >= len(in.Units) {
								break
							}
							u := &in.Units[i]
							if !wantUnit(u) {
								continue
							}
							if err := walker.Walk(u, &tab); err != nil {
								errs[w] = err
								return
							}
							n += tab.Len()
						}
						entries.Add(int64(n))
					}()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			})
			b.ReportMetric(float64(entries.Load()), "types")
		})
	}
}

func jobsName(jobs int) string { return "j" + string(rune('0'+jobs)) }

// benchTables is every unit's type table and variables, walked up front.
type benchTables struct {
	in   *loader.Input
	tabs []*loader.TypeTable // nil for units Encode does not convert
	vars [][]convert.Var
}

func (t *benchTables) close() { t.in.Close() }

func walkAll(b *testing.B, path string) *benchTables {
	b.Helper()
	in := openBench(b, path)
	opts := Options{Features: features.Default()}
	syms, err := in.ELF.Symbols()
	if err != nil {
		b.Fatal(err)
	}
	vs := newVarSections(in, syms, opts)
	set := opts.Features
	walker := loader.NewWalker(in.DWARF, in.ELF.ByteOrder, loader.WalkOptions{TypeTags: set.TypeTag,
		DeclTags: set.DeclTag, TrueSignature: set.TrueSignature, Arch: loader.ArchFor(in.ELF.Machine)})
	t := &benchTables{in: in, tabs: make([]*loader.TypeTable, len(in.Units)), vars: make([][]convert.Var, len(in.Units))}
	for i := range in.Units {
		u := &in.Units[i]
		if !wantUnit(u) {
			continue
		}
		tab := &loader.TypeTable{}
		if err := walker.Walk(u, tab); err != nil {
			b.Fatal(err)
		}
		cv, err := filterVars(tab, vs, nil)
		if err != nil {
			b.Fatal(err)
		}
		t.tabs[i], t.vars[i] = tab, cv.vars
	}
	return t
}

func convertOptions() convert.Options {
	set := features.Default()
	return convert.Options{Float: set.Float, Enum64: set.Enum64}
}

// BenchmarkConvert maps every unit's type table to a BTF fragment
// (convert.Converter.Convert) on one goroutine, reusing one fragment's buffers
// as Encode's workers do once fragments come back from splicing.
// filterVars and saving function states are not included.
func BenchmarkConvert(b *testing.B) {
	path := benchCorpus(b)
	t := benchFixture(b, "tables", func() *benchTables { return walkAll(b, path) })
	b.SetBytes(int64(t.in.InfoSize))
	conv := convert.New(convertOptions(), btf.IndexStringSections(t.in.DebugStr, t.in.DebugLineStr))
	var frag *btf.Fragment
	types := 0
	benchLoop(b, func() {
		types = 0
		for i, tab := range t.tabs {
			if tab == nil {
				continue
			}
			var err error
			if frag, err = conv.Convert(tab, t.vars[i], frag); err != nil {
				b.Fatal(err)
			}
			types += frag.Types.Len() + frag.Tail.Len()
		}
	})
	b.ReportMetric(float64(types), "types")
}

// benchFragments is every unit's fragment, converted up front.
type benchFragments struct {
	in    *loader.Input
	frags []*btf.Fragment
}

func (f *benchFragments) close() { f.in.Close() }

// BenchmarkPrepareKnown finds every unit's reference cycles
// (btf.Fragment.PrepareKnown: the check of the unit and Tarjan's
// components), the part of dropping known types that the workers do.
func BenchmarkPrepareKnown(b *testing.B) {
	f := benchFixture(b, "fragments", func() *benchFragments { return convertAll(b, benchCorpus(b)) })
	b.SetBytes(int64(f.in.InfoSize))
	types := 0
	benchLoop(b, func() {
		types = 0
		for _, frag := range f.frags {
			frag.PrepareKnown(nil, nil)
			types += frag.Types.Len()
		}
	})
	b.ReportMetric(float64(types), "types")
}

// convertAll walks and converts every unit of the kernel at path.
func convertAll(b *testing.B, path string) *benchFragments {
	t := walkAll(b, path)
	conv := convert.New(convertOptions(), btf.IndexStringSections(t.in.DebugStr, t.in.DebugLineStr))
	f := &benchFragments{in: t.in}
	for i, tab := range t.tabs {
		if tab == nil {
			continue
		}
		frag, err := conv.Convert(tab, t.vars[i])
		if err != nil {
			b.Fatal(err)
		}
		f.frags = append(f.frags, frag)
		t.tabs[i] = nil
	}
	return f
}

// BenchmarkSplice splices every unit's fragment into one type section in
// unit order (btf.Splicer), with the reservation Encode makes.
func BenchmarkSplice(b *testing.B) {
	path := benchCorpus(b)
	f := benchFixture(b, "fragments", func() *benchFragments { return convertAll(b, path) })
	var dst *btf.Types
	benchLoop(b, func() {
		dst = btf.NewTypes(btf.NewStrings())
		s := btf.NewSplicer(dst, btf.IndexStringSections(f.in.DebugStr, f.in.DebugLineStr))
		s.Grow(reservation(f.in))
		for _, frag := range f.frags {
			if _, _, err := s.Add(frag); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(dst.Len()), "types")
	// The size of the spliced type section, against the reservation.
	raw, err := dst.Marshal(binary.LittleEndian)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(raw)-btfHeaderLen-dst.Strings.Size())/(1<<20), "type-MiB")
	words, _ := reservation(f.in)
	b.ReportMetric(float64(4*words)/(1<<20), "reserved-MiB")
}

// benchPipeline is Encode's state after each phase up to the functions,
// run by Encode's own phases (on 2 workers, without the dedup pipe: the
// benchmarks run the dedup): all is the pre-dedup type graph.
type benchPipeline struct {
	e         *encoder
	states    [][]functions.State // as spliced, per unit
	types     int                 // all.Len() before functions were emitted
	all       *btf.Types          // with functions and DATASECs: Dedup's input
	functions []facts.Function
}

func (p *benchPipeline) close() { p.e.close() }

func buildPipeline(tb testing.TB, path string) *benchPipeline {
	tb.Helper()
	// DecideOnly starts no dedup pipe; the phases run here go on past it.
	e := newEncoder(path, Options{Features: features.Default(), Jobs: 2, DecideOnly: true})
	p := &benchPipeline{e: e}
	for _, phase := range []func() error{e.read, e.decode, func() error {
		p.types = e.all.Len()
		p.states = e.states
		return nil
	}, e.facts, e.decide, e.functions} {
		if err := phase(); err != nil {
			e.close()
			tb.Fatal(err)
		}
	}
	p.all, p.functions = e.all, e.res.Functions
	return p
}

// BenchmarkFacts groups the kernel's saved function states by ELF name,
// combines each group and builds the policy facts (the "facts" phase).
func BenchmarkFacts(b *testing.B) {
	path := benchCorpus(b)
	p := benchFixture(b, "pipeline", func() *benchPipeline { return buildPipeline(b, path) })
	var fns []facts.Function
	n := 0
	for _, s := range p.states {
		n += len(s)
	}
	benchLoop(b, func() {
		fns = functions.Group(p.all, p.e.elf, p.states, p.e.opts.Features).Facts(p.e.in.SectionName, false)
	})
	b.ReportMetric(float64(n), "states")
	b.ReportMetric(float64(len(fns)), "functions")
}

// BenchmarkDedup deduplicates the kernel's spliced type graph in one go
// (btf.Dedup, libbpf's order; Encode runs most of it beside the decode
// instead, see BenchmarkEncode's s-dedup-beside and s-dedup-tail). "full" is
// exactly what Encode gives btf.Dedup (3.7M types with FUNCs, FUNC_PROTOs
// and the DATASEC); "decide-only" is Result.Types of an Encode with
// DecideOnly: the same graph without the functions and DATASECs, which is
// what the public API hands out.
func BenchmarkDedup(b *testing.B) {
	path := benchCorpus(b)
	run := func(b *testing.B, in *btf.Types) {
		var out *btf.Types
		benchLoop(b, func() {
			var err error
			if out, err = btf.Dedup(in); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric(float64(in.Len()), "types-in")
		b.ReportMetric(float64(out.Len()), "types-out")
	}
	b.Run("full", func(b *testing.B) {
		p := benchFixture(b, "pipeline", func() *benchPipeline { return buildPipeline(b, path) })
		run(b, p.all)
	})
	b.Run("decide-only", func(b *testing.B) {
		run(b, decideOnlyFixture(b, path).Types)
	})
}

func decideOnlyFixture(b *testing.B, path string) *Result {
	return benchFixture(b, "decide-only", func() *Result {
		res, err := Encode(path, Options{Features: features.Default(), Jobs: 2, DecideOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		return res
	})
}

// BenchmarkPolicy decides the kernel's 44,811 function groups with the
// default policies (engine.DecideFunctions) on 1 and 2 goroutines, and its
// variables (engine.DecideVariables) on 2. The
// facts come from an Encode with DecideOnly. "compile" is engine.New,
// which the CLI runs before Encode and no phase counts.
func BenchmarkPolicy(b *testing.B) {
	path := benchCorpus(b)
	cfg := engine.Config{Features: features.Default()}
	b.Run("compile", func(b *testing.B) {
		benchLoop(b, func() {
			if _, err := engine.New(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
		})
	})
	for _, jobs := range []int{1, 2} {
		b.Run(jobsName(jobs), func(b *testing.B) {
			res := decideOnlyFixture(b, path)
			pol, err := engine.New(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			benchLoop(b, func() {
				if _, err := pol.DecideFunctions(context.Background(), res.Functions, jobs); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(len(res.Functions)), "functions")
		})
	}
	// The variables' decision, in one evaluation per worker (Encode
	// decides them in chunks beside the walks instead), with the default
	// features and with global_var: the kernel's 37,811 variables with a
	// static address.
	for _, globalVar := range []bool{false, true} {
		b.Run(fmt.Sprintf("variables-global_var=%v", globalVar), func(b *testing.B) {
			res := decideOnlyFixture(b, path)
			vcfg := cfg
			vcfg.Features.GlobalVar = globalVar
			pol, err := engine.New(context.Background(), vcfg)
			if err != nil {
				b.Fatal(err)
			}
			benchLoop(b, func() {
				if _, err := pol.DecideVariables(context.Background(), res.Variables, 2); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(len(res.Variables)), "variables")
		})
	}
}

// BenchmarkMarshal writes the kernel's deduplicated BTF (100,050 types).
func BenchmarkMarshal(b *testing.B) {
	path := benchCorpus(b)
	res := benchFixture(b, "encoded", func() *Result {
		res, err := Encode(path, Options{Features: features.Default(), Jobs: 2})
		if err != nil {
			b.Fatal(err)
		}
		return res
	})
	var raw []byte
	benchLoop(b, func() {
		var err error
		if raw, err = res.Types.Marshal(binary.LittleEndian); err != nil {
			b.Fatal(err)
		}
	})
	b.SetBytes(int64(len(raw)))
}

// BenchmarkEncode is the whole Encode of the corpus kernel (default
// features) on 1 and 2 workers; marshalling and writing are not included.
// MB/s is over .debug_info.
func BenchmarkEncode(b *testing.B) {
	path := benchCorpus(b)
	dropBenchFixture()
	in := openBench(b, path)
	info := in.InfoSize
	in.Close()
	for _, jobs := range []int{1, 2} {
		b.Run(jobsName(jobs), func(b *testing.B) {
			b.SetBytes(int64(info))
			var res *Result
			benchLoop(b, func() {
				res = nil // let the previous result go before the next encode
				var err error
				if res, err = Encode(path, Options{Features: features.Default(), Jobs: jobs}); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(res.Before), "types-in")
			// The dedup passes that ran beside the phases (the last run's).
			for _, o := range res.Overlapped {
				b.ReportMetric(o.Duration.Seconds(), "s-dedup-beside")
			}
			for _, ph := range res.Phases {
				if ph.Name == "dedup" {
					b.ReportMetric(ph.Duration.Seconds(), "s-dedup-tail")
				}
			}
		})
	}
}

// BenchmarkEncodeModule is the split encode of ext4.ko on the reference
// vmlinux BTF (loaded once, outside the timer) on 1 and 2 workers. MB/s is
// over the module's file size.
func BenchmarkEncodeModule(b *testing.B) {
	if testing.Short() {
		b.Skip("corpus benchmarks are skipped with -short")
	}
	dropBenchFixture()
	ko := corpus.Module(b, "ext4")
	base, err := LoadBase(corpus.ReferenceFile(b, "amd64.default.btf"))
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(ko)
	if err != nil {
		b.Fatal(err)
	}
	for _, jobs := range []int{1, 2} {
		b.Run(jobsName(jobs), func(b *testing.B) {
			b.SetBytes(st.Size())
			var res *Result
			benchLoop(b, func() {
				var err error
				if res, err = Encode(ko, Options{Features: features.Default(), Jobs: jobs, Base: base}); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(res.Types.Len()), "types-out")
		})
	}
}

// TestBenchPipelineMatchesEncode: the benchmarks' copy of Encode's steps
// gives Encode's pre-dedup type count and, deduplicated, Encode's bytes.
func TestBenchPipelineMatchesEncode(t *testing.T) {
	run := encodeCorpusDefault(t)
	p := buildPipeline(t, corpus.Vmlinux(t))
	defer p.close()
	if p.all.Len() != run.res.Before {
		t.Errorf("benchmark pipeline has %d types before dedup, Encode %d", p.all.Len(), run.res.Before)
	}
	if len(p.functions) != len(run.res.Functions) {
		t.Errorf("benchmark pipeline has %d function groups, Encode %d", len(p.functions), len(run.res.Functions))
	}
	out, err := btf.Dedup(p.all)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := out.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if at := firstDiff(raw, run.raw); at >= 0 {
		t.Errorf("benchmark pipeline's BTF differs from Encode's at byte %d (%d and %d bytes)", at, len(raw), len(run.raw))
	}
}
