package dwarf

import (
	"github.com/btfgate/btfgate/internal/cputime"
	"runtime"
	"sync"
	"testing"
)

// walkUnits decodes every DIE of units[from:to] with one Reader, skipping
// every subtree when skip is set, and returns the number of entries.
func walkUnits(tb testing.TB, d *Data, units []Unit, from, to int, skip bool) int {
	return walkWith(tb, d.NewReader(), units, from, to, skip)
}

// walkWith is walkUnits with a given Reader.
func walkWith(tb testing.TB, r *Reader, units []Unit, from, to int, skip bool) int {
	var e Entry
	n := 0
	for i := from; i < to; i++ {
		if err := r.Seek(&units[i]); err != nil {
			tb.Fatal(err)
		}
		if skip {
			// Decode the root and the top-level DIEs, skip their subtrees.
			if !r.Next(&e) {
				break
			}
			n++
		}
		for r.Next(&e) {
			n++
			if skip && e.Children {
				r.SkipChildren()
			}
		}
		if err := r.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	return n
}

// walkParallel splits the units between workers goroutines, each with its
// own Reader, taking units in interleaved chunks.
func walkParallel(tb testing.TB, d *Data, units []Unit, workers int) int {
	var wg sync.WaitGroup
	counts := make([]int, workers)
	const chunk = 16
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := d.NewReader()
			for start := w * chunk; start < len(units); start += workers * chunk {
				counts[w] += walkWith(tb, r, units, start, min(start+chunk, len(units)), false)
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

func benchVmlinux(b *testing.B, run func(d *Data, units []Unit) int) {
	_, s := vmlinux(b)
	runtime.GC() // do not time the collection of the loading garbage
	b.SetBytes(int64(len(s.Info)))
	b.ReportAllocs()
	var dies int
	cpu0 := cputime.Process()
	for b.Loop() {
		// A fresh Data per iteration: abbreviation parsing is part of the cost.
		d := mustNew(b, s)
		units, err := d.Units()
		if err != nil {
			b.Fatal(err)
		}
		dies = run(d, units)
	}
	// CPU time of the process per iteration: on a shared machine it says
	// more than wall time.
	b.ReportMetric(float64(cputime.Process()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(dies), "DIEs")
	b.ReportMetric(float64(dies)*float64(b.N)/b.Elapsed().Seconds()/1e6, "MDIE/s")
}

// BenchmarkWalkVmlinux decodes every DIE and attribute of the corpus kernel.
func BenchmarkWalkVmlinux(b *testing.B) {
	benchVmlinux(b, func(d *Data, units []Unit) int { return walkUnits(b, d, units, 0, len(units), false) })
}

// BenchmarkWalkVmlinux2 is BenchmarkWalkVmlinux with two goroutines.
func BenchmarkWalkVmlinux2(b *testing.B) {
	benchVmlinux(b, func(d *Data, units []Unit) int { return walkParallel(b, d, units, 2) })
}

// BenchmarkWalkVmlinuxSkip decodes the top-level DIEs of every unit and
// skips their children (with DW_AT_sibling where present).
func BenchmarkWalkVmlinuxSkip(b *testing.B) {
	benchVmlinux(b, func(d *Data, units []Unit) int { return walkUnits(b, d, units, 0, len(units), true) })
}
