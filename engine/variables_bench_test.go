package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/internal/cputime"
)

// kernelVariables is about the number of variables with a static address
// of a distribution vmlinux (37,811 on Debian's 6.1 kernel).
const kernelVariables = 38000

// syntheticVariables makes n variables shaped like a vmlinux's: a third
// with __UNIQUE_ID names (modinfo strings), 1% percpu, the others spread
// over .data, .rodata, .bss and .init.data, with pahole's reasons for
// the features (globalVar). The same arguments give the same variables.
func syntheticVariables(n int, globalVar bool) []facts.Variable {
	sections := []string{".data", ".rodata", ".bss", ".init.data"}
	out := make([]facts.Variable, n)
	for i := range out {
		v := &out[i]
		v.ID, v.CU, v.DIE = i, i/16, uint64(i)*40
		v.Name = fmt.Sprintf("var_%06d", i)
		v.Section = sections[i%len(sections)]
		v.Addr, v.Offset, v.Size = 0xffffffff82000000+uint64(i)*16, uint64(i+1)*16, 16
		v.Type, v.ValidName, v.InSymtab, v.External = "struct foo", true, true, i%6 == 0
		switch {
		case i%3 == 1:
			v.Name = fmt.Sprintf("__UNIQUE_ID_modinfo%d", i)
		case i%100 == 0:
			v.Section, v.Percpu, v.Offset = ".data..percpu", true, uint64(i)*8
		}
		switch {
		case !v.Percpu && !globalVar:
			v.PaholeSkip = facts.VarSkipSection
		case i%3 == 1:
			v.PaholeSkip = facts.VarSkipFilteredName
		}
	}
	return out
}

// BenchmarkDecideKernelVariables decides a synthetic kernel's variables
// with the default policies, default features and global_var, on two
// workers.
func BenchmarkDecideKernelVariables(b *testing.B) {
	for _, globalVar := range []bool{false, true} {
		vars := syntheticVariables(kernelVariables, globalVar)
		b.Run(fmt.Sprintf("global_var=%v", globalVar), func(b *testing.B) {
			cfg := defaults()
			cfg.Features.GlobalVar = globalVar
			e := newEngine(b, cfg)
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := e.DecideVariables(context.Background(), vars, 2); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(b.N * len(vars))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/variable")
			if c := cputime.Process() - cpu; c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/n, "cpu-ns/variable")
			}
		})
	}
}
