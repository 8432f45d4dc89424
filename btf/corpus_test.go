package btf

import (
	"debug/elf"
	"os"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// readReference returns the bytes of a file of pahole's reference output.
func readReference(tb testing.TB, rel string) []byte {
	tb.Helper()
	data, err := os.ReadFile(corpus.ReferenceFile(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// parseReference parses a file of pahole's reference output.
func parseReference(tb testing.TB, rel string, base *Types) *Types {
	tb.Helper()
	t, err := Parse(readReference(tb, rel), base)
	if err != nil {
		tb.Fatalf("parse %s: %v", rel, err)
	}
	return t
}

// debianBTF returns the .BTF section Debian's pahole 1.24 wrote into the
// corpus kernel.
func debianBTF(tb testing.TB) []byte {
	tb.Helper()
	f, err := elf.Open(corpus.Vmlinux(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".BTF")
	if sec == nil {
		tb.Fatal("corpus kernel has no .BTF section")
	}
	data, err := sec.Data()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// kindCounts counts own types by kind.
func kindCounts(t *Types) map[Kind]int {
	c := map[Kind]int{}
	for id := t.FirstID(); id < t.NextID(); id++ {
		c[t.Kind(id)]++
	}
	return c
}
