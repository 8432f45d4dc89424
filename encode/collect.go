package encode

import (
	"runtime"
	"runtime/debug"
)

// collectFrom is the size of .debug_info from which the encode collects
// its garbage between phases (collectBetweenPhases). Below this size (most
// modules) the collector runs only at the memory limit (cmd/btfgate's
// setMemoryLimit) and the phases' garbage is small: a collection there
// would be CPU spent for nothing.
const collectFrom = 4 << 20

// collectBetweenPhases runs a collection if the input's .debug_info (info
// bytes) is at least collectFrom, and gives the heap's free pages back to
// the system (debug.FreeOSMemory). The encode calls it where a phase leaves
// much garbage and the phases after it allocate: when the decode ends (the
// workers' tables, fragments and readers) and when the policies have
// decided (their inputs, built as OPA terms). Without a collection the
// heap grows into fresh pages for the next phases' facts, function types
// and dedup tables while that garbage waits for the next collection, and
// that is where a kernel's peak RSS is; with one, they can reuse its
// memory (docs/performance.md, "Session 13: garbage between the phases"
// and "Session 14: garbage the policies leave"). They reuse little of it:
// the garbage is spread over many small spans, which the next phases'
// large arrays cannot take, so kept it is resident memory nothing uses,
// on top of which those phases grow ("Session 15: folding the spliced
// types"). Giving it back costs a few milliseconds of page faults.
func collectBetweenPhases(info int) {
	if info >= collectFrom {
		debug.FreeOSMemory()
	}
}

// collectDuringDecodeFrom is the size of .debug_info from which the decode
// also starts collections while it runs (decodeCollections): a kernel's
// walk leaves its garbage (the workers' tables, fragments, readers and the
// variables' policy inputs) faster than the live heap grows, and the
// collector's pacing, which counts the splicer's and the dedup's
// reservations as live, would otherwise let the heap reach twice them.
// Smaller inputs (all but the largest modules) keep their few collections.
const collectDuringDecodeFrom = 64 << 20

// decodeCollections starts a collection, without waiting for it, each
// time the decode has spliced the units up to one of the offsets of
// .debug_info it holds: two fifths and seven tenths of it, where a
// kernel's heap has grown by about as much garbage as its walk leaves
// behind. At fixed points of the input, the collections come at the same
// stage of every encode, which keeps the peak RSS from depending on where
// the collector's own pacing happened to fall.
type decodeCollections struct {
	at      []uint64
	collect func() // starts a collection
}

// newDecodeCollections returns the collections of a decode of info bytes
// of .debug_info; none below collectDuringDecodeFrom.
func newDecodeCollections(info int) *decodeCollections {
	c := &decodeCollections{collect: func() { go runtime.GC() }}
	if info >= collectDuringDecodeFrom {
		c.at = []uint64{uint64(info) * 2 / 5, uint64(info) * 7 / 10}
	}
	return c
}

// spliced says the units up to off are spliced, and starts the collection
// due there, if any: one, when a unit (an LTO input's merged walk) passes
// more than one offset.
func (c *decodeCollections) spliced(off uint64) {
	due := false
	for len(c.at) > 0 && off >= c.at[0] {
		c.at, due = c.at[1:], true
	}
	if due {
		c.collect()
	}
}
