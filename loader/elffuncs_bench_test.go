package loader

import (
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/loader/elffile"
)

// BenchmarkCollectElfFuncsVmlinux groups the corpus kernel's symbols by
// base name; the encode's workers wait for it before saving function
// states.
func BenchmarkCollectElfFuncsVmlinux(b *testing.B) {
	f, err := elffile.Open(corpus.Vmlinux(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var t *ElfFuncs
	for b.Loop() {
		t = CollectElfFuncs(syms)
	}
	b.ReportMetric(float64(len(t.Funcs)), "names")
}
