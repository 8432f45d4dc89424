package encode

import "runtime"

// collectFrom is the size of .debug_info from which the encode collects
// its garbage between phases (collectBetweenPhases). Below this size (most
// modules) the collector runs only at the memory limit (cmd/btfgate's
// setMemoryLimit) and the phases' garbage is small: a collection there
// would be CPU spent for nothing.
const collectFrom = 4 << 20

// collectBetweenPhases runs a collection if the input's .debug_info (info
// bytes) is at least collectFrom. The encode calls it where a phase leaves
// much garbage and the phases after it allocate: when the decode ends (the
// workers' tables, fragments and readers) and when the policies have
// decided (their inputs, built as OPA terms). Without a collection the
// heap grows into fresh pages for the next phases' facts, function types
// and dedup tables while that garbage waits for the next collection, and
// that is where a kernel's peak RSS is; with one, they reuse its memory
// (docs/performance.md, "Session 13: garbage between the phases" and
// "Session 14: garbage the policies leave").
func collectBetweenPhases(info int) {
	if info >= collectFrom {
		runtime.GC()
	}
}
