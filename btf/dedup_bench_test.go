package btf

import (
	"github.com/btfgate/btfgate/internal/cputime"
	"strconv"
	"testing"
)

// BenchmarkDedupKernelTriple deduplicates three copies of pahole's kernel BTF
// (300k types in, 100k out).
func BenchmarkDedupKernelTriple(b *testing.B) {
	src := parseReference(b, "amd64.default.btf", nil)
	in := appendCopies(b, src, 3)
	benchDedup(b, in)
}

// BenchmarkDedupKernelUnits deduplicates 2500 compile units cut from the
// kernel's BTF, shaped like pahole's input (see cuSynth): about as many
// types as pahole feeds libbpf for the corpus kernel.
func BenchmarkDedupKernelUnits(b *testing.B) {
	src := parseReference(b, "amd64.default.btf", nil)
	in := synthInput(b, src, nil, 2500, 1)
	benchDedup(b, in)
}

// BenchmarkDedupInputs deduplicates the raw pre-dedup BTF files listed in
// BTFGATE_DEDUP_INPUTS (e.g. the encoder's input for the corpus kernel,
// 3.7M types).
func BenchmarkDedupInputs(b *testing.B) {
	for i, in := range dedupInputs(b) {
		b.Run(strconv.Itoa(i), func(b *testing.B) { benchDedup(b, in) })
	}
}

func benchDedup(b *testing.B, in *Types) {
	b.ReportAllocs()
	b.ResetTimer()
	var out *Types
	cpu := cputime.Process()
	for range b.N {
		var err error
		if out, err = Dedup(in); err != nil {
			b.Fatal(err)
		}
	}
	cpu = cputime.Process() - cpu
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(in.Len()), "ns/type")
	b.ReportMetric(float64(in.Len()), "types-in")
	b.ReportMetric(float64(out.Len()), "types-out")
}

// BenchmarkAppendUnits appends 500 compile units cut from the kernel's BTF
// (see cuSynth), each with its own string table.
func BenchmarkAppendUnits(b *testing.B) {
	src := parseReference(b, "amd64.default.btf", nil)
	s := newCUSynth(src, 1)
	units := make([]*Types, 500)
	n := 0
	for i := range units {
		units[i] = s.unit()
		n += units[i].Len()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for range b.N {
		all := NewTypes(NewStrings())
		for _, u := range units {
			if err := all.Append(u, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu = cputime.Process() - cpu
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/type")
	b.ReportMetric(float64(n), "types")
}
