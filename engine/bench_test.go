package engine

import (
	"context"
	"fmt"
	"github.com/btfgate/btfgate/internal/cputime"
	"testing"

	"github.com/btfgate/btfgate/facts"
)

// kernelSize is about the number of function groups of a distribution
// vmlinux (pahole emits 43,913 FUNCs and skips 898 groups on Debian 6.1).
const kernelSize = 45000

// BenchmarkDecideKernel decides a synthetic kernel with the default
// policies and two workers. It reports wall and CPU time per function;
// the budget is 0.3 s for the whole kernel on two cores.
func BenchmarkDecideKernel(b *testing.B) {
	benchmarkDecide(b, defaults(), syntheticKernel(kernelSize))
}

// BenchmarkDecideKernelWithLists adds configuration lists: every entry is
// a glob matched against every function name.
func BenchmarkDecideKernelWithLists(b *testing.B) {
	cfg := defaults()
	cfg.Data = map[string]any{
		"deny": []any{"fn_0001*", "*_unsafe"},
		"keep": []any{"fn_002*"},
		"tags": []any{map[string]any{"name": "fn_0003*", "tag": "traced"}},
	}
	benchmarkDecide(b, cfg, syntheticKernel(kernelSize))
}

// BenchmarkDecideKernelWithNameList denies 30,000 functions by exact name,
// as a security team's list of what tracing may not see: names are looked
// up, not matched as globs against every function.
func BenchmarkDecideKernelWithNameList(b *testing.B) {
	var deny []any
	for i := 0; i < 30000; i++ {
		deny = append(deny, fmt.Sprintf("fn_%06d", i))
	}
	cfg := defaults()
	cfg.Data = map[string]any{"deny": deny}
	benchmarkDecide(b, cfg, syntheticKernel(kernelSize))
}

func benchmarkDecide(b *testing.B, cfg Config, fns []facts.Function) {
	ctx := context.Background()
	e := newEngine(b, cfg)
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := e.DecideFunctions(ctx, fns, 2); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(b.N * len(fns))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/function")
	if c := cputime.Process() - cpu; c > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/n, "cpu-ns/function")
	}
}

// BenchmarkNew compiles the default policy set.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		newEngine(b, defaults())
	}
}

// BenchmarkNewCached loads the default policy set from a policy cache.
func BenchmarkNewCached(b *testing.B) {
	cfg := defaults()
	cfg.CacheDir = b.TempDir()
	newEngine(b, cfg)
	b.ReportAllocs()
	for b.Loop() {
		if e := newEngine(b, cfg); !e.cached {
			b.Fatal("not from the cache")
		}
	}
}

// BenchmarkDecideKernelEveryField adds a module that reads a fact through
// a computed key, so every field of every object is built.
func BenchmarkDecideKernelEveryField(b *testing.B) {
	cfg := defaults()
	cfg.Modules = []Module{{Name: "computed.rego", Source: `package btfgate.functions

skip.computed := {id: {"computed"} |
	some k in data.btfgate.config.facts
	input.functions[id][k] == "never"
}
`}}
	cfg.Data = map[string]any{"facts": []any{"name"}}
	benchmarkDecide(b, cfg, syntheticKernel(kernelSize))
}

// BenchmarkDecideKernelConstantKey is BenchmarkDecideKernelEveryField's
// rule with a constant key: only the mentioned fields are built.
func BenchmarkDecideKernelConstantKey(b *testing.B) {
	cfg := defaults()
	cfg.Modules = []Module{{Name: "constant.rego", Source: `package btfgate.functions

skip.constant := {id: {"constant"} |
	input.functions[id].name == "never"
}
`}}
	benchmarkDecide(b, cfg, syntheticKernel(kernelSize))
}

// BenchmarkDecideSmall decides what a small module's encode does: two
// functions and a few variables, each on goroutines of their own, where
// the fixed cost of an evaluation shows.
func BenchmarkDecideSmall(b *testing.B) {
	e := newEngine(b, defaults())
	fns := syntheticKernel(2)
	vars := syntheticVariables(20, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.DecideFunctions(ctx, fns, 2); err != nil {
			b.Fatal(err)
		}
		if _, err := e.DecideVariables(ctx, vars, 2); err != nil {
			b.Fatal(err)
		}
	}
}
