package encode

import (
	"testing"

	"github.com/btfgate/btfgate/btf"
)

// TestDedupPipeSetupError: when the dedup cannot be set up on its
// goroutine (here: the types carry a builder error), finish returns the
// error instead of leaving a nil dedup to the caller, and a pipe that
// would fold says it folded nothing.
func TestDedupPipeSetupError(t *testing.T) {
	all := btf.NewTypes(btf.NewStrings())
	all.AddInt(all.Strings.Add("odd"), 4, btf.IntSigned, 0, 300) // 300 bits: more than BTF holds
	if all.Err() == nil {
		t.Fatal("the builder took a 300-bit int")
	}
	p := startDedupPipe(all, 16, 64, true)
	p.close()
	if f, _ := p.advanced.wait(); f.types != -1 {
		t.Errorf("the pipe folded %d broken types", f.types)
	}
	if out, _, err := p.finish(); err == nil {
		t.Fatalf("finish set up a dedup of broken types (%d types out)", out.Len())
	}
}
