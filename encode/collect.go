package encode

import "runtime"

// collectFrom is the size of .debug_info from which the encode collects
// its garbage once the units are walked. The walk leaves much of it (the
// workers' tables, fragments and readers), and the phases after it
// allocate their facts, policy inputs and function types: without a
// collection between, the heap grows into fresh pages for them while the
// walk's garbage waits for the next collection, and that is the peak of a
// kernel's RSS. With one, they reuse the walk's memory: on the corpus
// kernel the peak RSS at -j2 fell by about 8 % (docs/performance.md,
// "Session 13: garbage between the phases") for no wall time. Below
// this size (most modules) the collector runs only at the memory limit
// (cmd/btfgate's setMemoryLimit) and the walk's garbage is small: a
// collection there would be CPU spent for nothing.
const collectFrom = 4 << 20

// collectAfterDecode runs a collection if the input's .debug_info (info
// bytes) is at least collectFrom.
func collectAfterDecode(info int) {
	if info >= collectFrom {
		runtime.GC()
	}
}
