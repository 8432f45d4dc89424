package engine

import (
	"fmt"
	"math/rand/v2"

	"github.com/btfgate/btfgate/facts"
)

// syntheticKernel makes n function groups shaped like a vmlinux's: about
// 2% carry a skip flag (in the proportions pahole reports for Debian's 6.1
// kernel: mostly optimized parameters and ambiguous addresses), groups
// have 1.3 instances on average, canonical instances 0-6 parameters, and
// no true signature. The same n gives the same functions.
func syntheticKernel(n int) []facts.Function {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	fns := make([]facts.Function, n)
	types := []string{"int", "unsigned int", "long", "void *", "struct sk_buff *", "const char *", "u64", "struct file *"}
	for i := range fns {
		f := &fns[i]
		f.ID = i
		f.Name = fmt.Sprintf("fn_%06d", i)
		addr := 0xffffffff81000000 + uint64(i)*64
		f.Symbols = []facts.Symbol{{Name: f.Name, Value: addr, Size: 64, Section: ".text", Global: i%3 == 0}}
		f.Section = ".text"
		f.External = i%3 == 0
		f.Instances = 1
		if rng.IntN(10) < 3 {
			f.Instances = 2
		}
		params := make([]facts.Param, rng.IntN(7))
		for j := range params {
			params[j] = facts.Param{
				Name: fmt.Sprintf("arg%d", j), Type: types[rng.IntN(len(types))],
				Idx: j, OriginIdx: -1, HasLoc: true, LocReg: []int{5, 4, 1, 2, 8, 9}[j],
				TypeSize: 8,
			}
		}
		f.Canonical = facts.Instance{
			CU: i / 40, DIE: uint64(i) * 100, Addr: addr, AddrMatchesSymbol: true,
			Prototype: "int " + f.Name + "(...)", Params: params,
		}
		if i%300 == 7 { // 150 noinstr functions
			f.TextRegions = []string{"noinstr"}
		}
		if rng.IntN(1000) < 20 { // ~2% flagged
			flag(f, rng)
		}
	}
	return fns
}

// flag gives f one or more skip flags, in pahole's vmlinux proportions.
func flag(f *facts.Function, rng *rand.Rand) {
	switch r := rng.IntN(100); {
	case r < 55:
		f.Canonical.OptimizedParms = true
		f.Canonical.OptimizedSymbol = true
		f.Canonical.OptimizedSkip = true
		if r < 16 { // U+R+O, reported as O
			f.UnexpectedReg = true
			f.Reordered = true
		}
	case r < 90:
		f.AmbiguousAddr = true
		f.Symbols = append(f.Symbols, facts.Symbol{Name: f.Name, Value: f.Symbols[0].Value + 0x100000, Size: 32, Section: ".text"})
	case r < 95:
		f.Reordered = true
	case r < 99:
		f.Inconsistent = true
		f.Mismatch = "param count mismatch; 2 params != 3 params"
	default:
		f.UnexpectedReg = true
	}
}
