package functions

import (
	"fmt"
	"strings"

	"github.com/btfgate/btfgate/loader"
)

// SelectTrueSignatures turns true signatures on for the groups selected
// lists (indexes) that a rule selected, as the true_signature feature
// would for them: each group's true-signature state and canonical state
// are chosen again (spec §2.7 steps 4 and 5; optimized_skip no longer
// applies). Their facts are then Fact's again.
//
// It refuses groups with a state whose signature clang changed
// (DW_CC_nocall): with the feature, the loader's ABI walk of those
// functions and the parameters their states keep differ (spec §2.5, §2.6),
// and the walk ran without it. Only the feature reproduces pahole there.
func (gs *Groups) SelectTrueSignatures(selected []int) error {
	var refused []string
	for _, gi := range selected {
		g := &gs.list[gi]
		changed := false
		for k := range g.states {
			if g.states[k].flags&loader.FuncSignatureChanged != 0 {
				changed = true
				break
			}
		}
		if changed {
			refused = append(refused, gs.elf.Funcs[g.elf].Name)
			continue
		}
		g.trueSignature = true
		g.choose()
	}
	if len(refused) == 0 {
		return nil
	}
	const maxNamed = 10
	names := refused
	more := ""
	if len(names) > maxNamed {
		names = names[:maxNamed]
		more = fmt.Sprintf(" and %d more", len(refused)-maxNamed)
	}
	return fmt.Errorf("true_signature rules select %d function(s) whose signature clang changed (DW_CC_nocall): "+
		"their parameter locations were analysed without true_signature, so a per-function selection cannot reproduce pahole for them; "+
		"encode with --features=+true_signature, or leave them out of the selection: %s%s",
		len(refused), strings.Join(names, ", "), more)
}
