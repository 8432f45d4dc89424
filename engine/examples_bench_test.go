package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecideKernelExamples decides a synthetic kernel with each
// example policy of ../examples loaded over the default set, with data
// like its rules file's (address ranges inside the synthetic kernel's
// text, which starts at 0xffffffff81000000).
func BenchmarkDecideKernelExamples(b *testing.B) {
	security := map[string]any{"trace_safety": map[string]any{
		"ranges": []any{
			map[string]any{"name": ".noinstr.text", "start": uint64(0xffffffff81000200), "end": uint64(0xffffffff81000800)},
			map[string]any{"name": ".entry.text", "start": uint64(0xffffffff81100000), "end": uint64(0xffffffff81100400)},
		},
		"deny": []any{"__bpf_prog_enter*", map[string]any{"name": "__bpf_prog_exit*", "reason": "recursion"}},
	}}
	for _, tc := range []struct {
		name  string
		files []string
		data  map[string]any
	}{
		{"security", []string{"security/trace_safety.rego", "security/guard.rego"}, security},
		{"distro", []string{"distro/distro.rego"}, map[string]any{"distro": map[string]any{
			"drop": []any{map[string]any{"section": ".init.text"}, map[string]any{"name": "*_debugfs_*"}},
		}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := defaults()
			cfg.Data = tc.data
			for _, f := range tc.files {
				p := filepath.Join("..", "examples", f)
				src, err := os.ReadFile(p)
				if err != nil {
					b.Skip(err)
				}
				cfg.Modules = append(cfg.Modules, Module{Name: p, Source: string(src)})
			}
			benchmarkDecide(b, cfg, syntheticKernel(kernelSize))
		})
	}
}
