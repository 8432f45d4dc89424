package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/btfgate/btfgate/encode"
)

// setMemoryLimit gives the Go runtime a soft memory limit scaled to the
// input, unless GOMEMLIMIT is set: the heap then stays near what the encode
// needs instead of growing to twice its live size between collections. The
// limit covers the Go heap only; the mapped input adds its resident pages,
// which the encoder releases as it goes. It is 48 MiB (or, when less, 16 MiB
// plus 32 times the file size) plus 3/2 of the file size, plus 4 MiB for
// each worker beyond two (their buffers). For an input under
// collectAtLimitBelow the limit is also the only trigger of a collection
// (the GC percentage is off, unless GOGC is set): such an encode allocates
// less than its limit, so it then runs no collection at all.
// docs/performance.md has the measurements that chose these numbers.
func setMemoryLimit(input string, jobs int) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(48 << 20)
	if st, err := os.Stat(input); err == nil {
		// An input under a MiB needs little heap: its floor is smaller, so
		// that a runaway policy stopped relative to the limit
		// (engine.Limits) stays near the honest work there too.
		limit = min(limit, 16<<20+32*st.Size())
		limit += st.Size() + st.Size()/2
		if st.Size() < collectAtLimitBelow && os.Getenv("GOGC") == "" {
			debug.SetGCPercent(-1)
		}
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

// collectAtLimitBelow is the input size under which the collector runs
// only at the soft memory limit: 95 % of a distribution kernel's modules.
// Their encodes spend a fifth to a third less CPU so (the collector's
// cycles and mark assists during the policy set-up and the decode), for a
// peak RSS within about 2 MiB of a collection per doubling of the heap.
const collectAtLimitBelow = 4 << 20

// raiseForMerge adds to the limit setMemoryLimit set what the merged walk
// of an LTO input holds at its peak (encode.MergedHeap per byte of
// .debug_info): below it the collector would run without pause. It is
// encode.Options.Opened.
func raiseForMerge(merged bool, debugInfo int) {
	if !merged || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := debug.SetMemoryLimit(-1)
	if extra := int64(encode.MergedHeap) * int64(debugInfo); limit < math.MaxInt64-extra {
		debug.SetMemoryLimit(limit + extra)
	}
}
