package elffile

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/internal/cputime"
)

func BenchmarkOpenVmlinux(b *testing.B) {
	path := corpus.Vmlinux(b)
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	cputime.ReportPerOp(b, cpu)
}

func BenchmarkSymbolsVmlinux(b *testing.B) {
	f := openTest(b, corpus.Vmlinux(b))
	b.ReportAllocs()
	n := 0
	cpu := cputime.Process()
	for b.Loop() {
		syms, err := f.Symbols()
		if err != nil {
			b.Fatal(err)
		}
		n = len(syms)
	}
	cputime.ReportPerOp(b, cpu)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/symbol")
}

func benchmarkDebugSections(b *testing.B, path string) {
	f := openTest(b, path)
	b.SetBytes(int64(f.Section(".debug_info").Size))
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		secs, err := f.DebugSections(debugNames...)
		if err != nil {
			b.Fatal(err)
		}
		if len(secs[".debug_info"]) == 0 {
			b.Fatal("no .debug_info")
		}
	}
	cputime.ReportPerOp(b, cpu)
}

// BenchmarkDebugSectionsExt4 relocates ext4.ko's debug sections (about
// 360k RELA entries); SetBytes is the size of .debug_info.
func BenchmarkDebugSectionsExt4(b *testing.B) {
	benchmarkDebugSections(b, corpus.Module(b, "ext4"))
}

// BenchmarkDebugSectionsVmlinux is the zero-copy path of an executable.
func BenchmarkDebugSectionsVmlinux(b *testing.B) {
	benchmarkDebugSections(b, corpus.Vmlinux(b))
}

// BenchmarkDebugSectionsExt4Compressed decompresses and relocates ext4.ko
// recompressed by objcopy; SetBytes is the compressed .debug_info size.
func BenchmarkDebugSectionsExt4Compressed(b *testing.B) {
	src := corpus.Module(b, "ext4")
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		b.Skip("objcopy not in PATH")
	}
	for _, format := range []string{"zlib", "zstd"} {
		b.Run(format, func(b *testing.B) {
			dst := filepath.Join(b.TempDir(), "ext4-"+format+".ko")
			if out, err := exec.Command(objcopy, "--compress-debug-sections="+format, src, dst).CombinedOutput(); err != nil {
				b.Skipf("objcopy cannot compress with %s: %v: %s", format, err, out)
			}
			benchmarkDebugSections(b, dst)
		})
	}
}
