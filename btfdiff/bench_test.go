package btfdiff

import (
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// BenchmarkCompareKernel is what `btfgate diff` does with two kernel BTFs:
// load both (100,050 and 123,824 types) and compare them.
func BenchmarkCompareKernel(b *testing.B) {
	pa := corpus.ReferenceFile(b, "amd64.default.btf")
	pb := corpus.ReferenceFile(b, "amd64.all.btf")
	for b.Loop() {
		Compare(mustLoad(b, pa, ""), mustLoad(b, pb, ""))
	}
}

// BenchmarkLoadKernel decodes and renders the keys of one kernel BTF.
func BenchmarkLoadKernel(b *testing.B) {
	p := corpus.ReferenceFile(b, "amd64.default.btf")
	for b.Loop() {
		mustLoad(b, p, "")
	}
}

// BenchmarkCompareSets compares two loaded kernel Sets.
func BenchmarkCompareSets(b *testing.B) {
	x := mustLoad(b, corpus.ReferenceFile(b, "amd64.default.btf"), "")
	y := mustLoad(b, corpus.ReferenceFile(b, "amd64.all.btf"), "")
	for b.Loop() {
		Compare(x, y)
	}
}
