package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// setMemoryLimit gives the Go runtime a soft memory limit scaled to the
// input, unless GOMEMLIMIT is set: the heap then stays near what the encode
// needs instead of growing to twice its live size between collections. On
// the corpus kernel (303 MB file) this keeps peak RSS below pahole's at
// about 17% more CPU at -j2 (docs/performance.md). Each worker beyond two
// adds room, or the collector would run without pause at high -j.
func setMemoryLimit(input string, jobs int) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	const floor = 256 << 20
	limit := int64(floor)
	if st, err := os.Stat(input); err == nil && st.Size()+16<<20 > limit {
		limit = st.Size() + 16<<20
	}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs > 2 {
		limit += int64(jobs-2) * 48 << 20
	}
	debug.SetMemoryLimit(limit)
}
