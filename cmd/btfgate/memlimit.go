package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// setMemoryLimit gives the Go runtime a soft memory limit scaled to the
// input, unless GOMEMLIMIT is set: the heap then stays near what the encode
// needs instead of growing to twice its live size between collections. The
// limit covers the Go heap only; the mapped input adds its resident pages,
// which the encoder releases as it goes, so that on the corpus kernel
// (303 MB file) the file size plus 96 MiB keeps peak RSS below pahole's
// while the collector runs rarely (docs/performance.md). Each worker beyond
// two adds room, or the collector would run without pause at high -j.
func setMemoryLimit(input string, jobs int) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	const floor = 256 << 20
	limit := int64(floor)
	if st, err := os.Stat(input); err == nil && st.Size()+96<<20 > limit {
		limit = st.Size() + 96<<20
	}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs > 2 {
		limit += int64(jobs-2) * 48 << 20
	}
	debug.SetMemoryLimit(limit)
}
