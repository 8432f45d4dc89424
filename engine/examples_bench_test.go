package engine

import (
	"context"
	"github.com/btfgate/btfgate/internal/cputime"
	"os"
	"path/filepath"
	"testing"
)

// exampleConfigs are the example policies of ../examples loaded over the
// default set, with data like their rules files' (address ranges inside
// the synthetic kernel's text, which starts at 0xffffffff81000000).
func exampleConfigs() []struct {
	name  string
	files []string
	data  map[string]any
} {
	security := map[string]any{"trace_safety": map[string]any{
		"regions": []any{"noinstr", "entry"},
		"ranges": []any{
			map[string]any{"name": ".noinstr.text", "start": uint64(0xffffffff81000200), "end": uint64(0xffffffff81000800)},
			map[string]any{"name": ".entry.text", "start": uint64(0xffffffff81100000), "end": uint64(0xffffffff81100400)},
		},
		"deny": []any{"__bpf_prog_enter*", map[string]any{"name": "__bpf_prog_exit*", "reason": "recursion"}},
	}}
	distro := func(clones bool) map[string]any {
		return map[string]any{"distro": map[string]any{
			"drop":   []any{map[string]any{"section": ".init.text"}, map[string]any{"name": "*_debugfs_*"}},
			"clones": clones,
		}}
	}
	return []struct {
		name  string
		files []string
		data  map[string]any
	}{
		{"security", []string{"security/trace_safety.rego", "security/guard.rego"}, security},
		{"distro", []string{"distro/distro.rego"}, distro(false)},
		{"distro-clones", []string{"distro/distro.rego"}, distro(true)},
	}
}

func exampleConfig(b *testing.B, files []string, data map[string]any) Config {
	cfg := defaults()
	cfg.Data = data
	for _, f := range files {
		p := filepath.Join("..", "examples", f)
		src, err := os.ReadFile(p)
		if err != nil {
			b.Skip(err)
		}
		cfg.Modules = append(cfg.Modules, Module{Name: p, Source: string(src)})
	}
	return cfg
}

// BenchmarkDecideKernelExamples decides a synthetic kernel with each
// example policy.
func BenchmarkDecideKernelExamples(b *testing.B) {
	for _, tc := range exampleConfigs() {
		b.Run(tc.name, func(b *testing.B) {
			benchmarkDecide(b, exampleConfig(b, tc.files, tc.data), syntheticKernel(kernelSize))
		})
	}
}

// BenchmarkSelectAndDecideKernelExamples runs what the encoder runs for
// example policies with a true_signature rule: the selection, then the
// decisions, in one session (each function's input built once). Compare
// with BenchmarkDecideKernelExamples.
func BenchmarkSelectAndDecideKernelExamples(b *testing.B) {
	for _, tc := range exampleConfigs() {
		b.Run(tc.name, func(b *testing.B) {
			e := newEngine(b, exampleConfig(b, tc.files, tc.data))
			if !e.SelectsTrueSignature() {
				b.Skip("no true_signature rule")
			}
			fns := syntheticKernel(kernelSize)
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				s := e.NewSession(fns, 2)
				if _, err := s.SelectTrueSignature(ctx); err != nil {
					b.Fatal(err)
				}
				if _, err := s.DecideFunctions(ctx); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(b.N * len(fns))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/function")
			if c := cputime.Process() - cpu; c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/n, "cpu-ns/function")
			}
		})
	}
}
