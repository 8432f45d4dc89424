package functions

import (
	"strings"
	"testing"

	"github.com/btfgate/btfgate/loader"
)

// TestTrueSignatureRefusedWhereClangChangedTheSignature: clang's
// DW_CC_nocall functions are walked differently with the feature, so a
// per-function selection refuses them instead of emitting what pahole
// would not.
func TestTrueSignatureRefusedWhereClangChangedTheSignature(t *testing.T) {
	elf := &loader.ElfFuncs{Funcs: []loader.ElfFunc{
		{Name: "a", Syms: []loader.ElfSym{{Name: "a.isra.0", Value: 0x10}}},
		{Name: "b", Syms: []loader.ElfSym{{Name: "b.isra.0", Value: 0x20}}},
	}}
	gs := &Groups{elf: elf, list: []group{
		{elf: 0, trueSig: -1, states: []State{{elf: 0, addr: 0x10, addrMatches: true, trueSym: 0}}},
		{elf: 1, trueSig: -1, states: []State{{elf: 1, addr: 0x20, addrMatches: true, trueSym: 0, flags: loader.FuncSignatureChanged}}},
	}}
	err := gs.SelectTrueSignatures([]int{0, 1})
	if err == nil || !strings.Contains(err.Error(), "1 function(s) whose signature clang changed (DW_CC_nocall)") ||
		!strings.Contains(err.Error(), "--features=+true_signature") || !strings.HasSuffix(err.Error(), ": b") {
		t.Fatalf("error %v, want b refused", err)
	}
	// Without clang's mark the group gets its true signature.
	gs.list[0].trueSignature, gs.list[0].trueSig = false, -1
	err = gs.SelectTrueSignatures([]int{0})
	if g := &gs.list[0]; err != nil || !g.trueSignature || g.trueSig != 0 {
		t.Fatalf("error %v, trueSignature %v, trueSig %d; want the clone chosen", err, g.trueSignature, g.trueSig)
	}
}
