package functions

import (
	"github.com/btfgate/btfgate/loader"
)

// optSkip is pahole's btf_encoder_func_state__skip_optimized_parms, with
// trueSig saying whether true signatures apply to the state's group.
func optSkip(s *State, trueSig bool) bool {
	return !trueSig && s.flags&loader.FuncOptimizedParms != 0 &&
		(s.flags&loader.FuncSignatureChanged != 0 || s.optimizedSymbol)
}

// canonical is pahole's btf_encoder__select_canonical_state.
func canonical(g *group) int {
	if len(g.states) == 1 {
		return 0
	}
	first := -1
	for k := range g.states {
		s := &g.states[k]
		if !s.addrMatches {
			continue
		}
		if first < 0 {
			first = k
		}
		if !optSkip(s, g.trueSignature) {
			return k
		}
	}
	if first >= 0 {
		return first
	}
	return 0
}
