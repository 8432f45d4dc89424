package encode

import (
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/functions"
)

// unitResults gathers, in unit order, the function states and variable
// facts of the spliced units. Appending each unit's slice to one growing
// slice would allocate about five times the final size (append grows a
// large slice by a quarter), all of it garbage that the kernel's encode
// carries until the next collection; here the states stay the units' own
// slices (functions.Group sorts them into one), and the variables' facts
// fill blocks of varChunk that never move (each full block is the
// variable decider's next chunk), copied once at the final size.
type unitResults struct {
	states [][]functions.State
	blocks [][]facts.Variable // full blocks of varChunk facts
	tail   []facts.Variable   // the block being filled
}

// addStates keeps a unit's states, not copied.
func (u *unitResults) addStates(s []functions.State) {
	if len(s) > 0 {
		u.states = append(u.states, s)
	}
}

// nvars is the number of variables' facts added so far.
func (u *unitResults) nvars() int { return len(u.blocks)*varChunk + len(u.tail) }

// addVars appends a unit's variables' facts (IDs set) and calls full with
// each block it fills, in order.
func (u *unitResults) addVars(vs []facts.Variable, full func(block []facts.Variable)) {
	for len(vs) > 0 {
		if u.tail == nil && len(u.blocks) > 0 {
			// Past the first block, a block is filled to the end.
			u.tail = make([]facts.Variable, 0, varChunk)
		}
		n := min(varChunk-len(u.tail), len(vs))
		u.tail = append(u.tail, vs[:n]...)
		vs = vs[n:]
		if len(u.tail) == varChunk {
			block := u.tail[:varChunk:varChunk]
			u.blocks = append(u.blocks, block)
			u.tail = nil
			full(block)
		}
	}
}

// allVars returns every variable's facts, in id order, in one slice of the
// final size.
func (u *unitResults) allVars() []facts.Variable {
	if len(u.blocks) == 0 {
		return u.tail
	}
	out := make([]facts.Variable, 0, u.nvars())
	for _, b := range u.blocks {
		out = append(out, b...)
	}
	out = append(out, u.tail...)
	u.blocks, u.tail = nil, nil
	return out
}
