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
// which the encoder releases as it goes. It is 48 MiB plus 3/2 of the file
// size, plus 4 MiB for each worker beyond two (their buffers);
// docs/performance.md has the measurements that chose these numbers.
func setMemoryLimit(input string, jobs int) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(48 << 20)
	if st, err := os.Stat(input); err == nil {
		limit += st.Size() + st.Size()/2
	}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, 4*runtime.GOMAXPROCS(0)) // as encode clamps them
	if jobs > 2 {
		limit += int64(jobs-2) * 4 << 20
	}
	debug.SetMemoryLimit(limit)
}
