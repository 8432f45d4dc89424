package encode

import (
	"testing"

	"github.com/btfgate/btfgate/facts"
)

// TestUnitResultsVars checks the variables' blocks: units of every size
// (none, fewer than a block, several blocks at once) fill blocks of
// exactly varChunk facts, handed over in order as they fill and never
// moved after, and allVars gives every fact in id order.
func TestUnitResultsVars(t *testing.T) {
	var got unitResults
	var blocks [][]facts.Variable
	sizes := []int{0, 3, varChunk - 3, 1, 2*varChunk + 5, 0, varChunk, 17}
	total := 0
	for _, n := range sizes {
		vs := make([]facts.Variable, n)
		for k := range vs {
			vs[k].ID = got.nvars() + k
		}
		got.addVars(vs, func(b []facts.Variable) { blocks = append(blocks, b) })
		total += n
		if got.nvars() != total {
			t.Fatalf("after a unit of %d: nvars %d, want %d", n, got.nvars(), total)
		}
	}
	if len(blocks) != total/varChunk {
		t.Fatalf("%d blocks handed over for %d facts, want %d", len(blocks), total, total/varChunk)
	}
	for i, b := range blocks {
		if len(b) != varChunk || cap(b) != varChunk {
			t.Errorf("block %d: len %d cap %d, want %d", i, len(b), cap(b), varChunk)
		}
		for k := range b { // still in place: unitResults never wrote over them
			if b[k].ID != i*varChunk+k {
				t.Fatalf("block %d fact %d: id %d, want %d", i, k, b[k].ID, i*varChunk+k)
			}
		}
	}
	all := got.allVars()
	if len(all) != total {
		t.Fatalf("allVars: %d facts, want %d", len(all), total)
	}
	for k := range all {
		if all[k].ID != k {
			t.Fatalf("allVars[%d]: id %d", k, all[k].ID)
		}
	}
}
