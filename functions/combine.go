package functions

import (
	"fmt"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/loader"
)

// combine is pahole's saved_functions_combine over a group: the first state
// accumulates U, I, C and R; each later state holds the running OR; while
// none of U, I, R is set, prototypes are compared with the first.
func combine(types *btf.Types, g *group) {
	first := &g.states[0]
	first.accU = first.flags&loader.FuncUnexpectedReg != 0
	first.accC = first.uncertain
	first.accR = first.flags&loader.FuncReordered != 0
	for k := 1; k < len(g.states); k++ {
		b := &g.states[k]
		u := first.accU || b.flags&loader.FuncUnexpectedReg != 0
		i := first.accI
		c := first.accC || b.uncertain
		r := first.accR || b.flags&loader.FuncReordered != 0
		if !u && !i && !r {
			if msg := protoMismatch(types, first, b); msg != "" {
				i = true
				g.mismatch = msg
			}
		}
		first.accU, first.accI, first.accC, first.accR = u, i, c, r
		b.accU, b.accI, b.accC, b.accR = u, i, c, r
	}
}

// protoMismatch is pahole's funcs__match: "" when the prototypes agree,
// else pahole's message for the first difference.
func protoMismatch(types *btf.Types, a, b *State) string {
	if len(a.params) != len(b.params) {
		return fmt.Sprintf("param count mismatch; %d params != %d params", len(a.params), len(b.params))
	}
	if !types.TypesMatch(a.ret, b.ret) {
		return "return type mismatch"
	}
	for i := range a.params {
		if !types.TypesMatch(a.params[i].typ, b.params[i].typ) {
			return fmt.Sprintf("param type mismatch for param#%d %s != %s", i+1,
				types.Strings.String(a.params[i].nameOff), types.Strings.String(b.params[i].nameOff))
		}
	}
	return ""
}
