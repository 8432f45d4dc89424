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
// which the encoder releases as it goes. 48 MiB plus 3/2 of the file size
// (the corpus kernel, 303 MB: 502 MiB) keeps peak RSS at 0.9x pahole's
// while the collector mostly leaves the last phases alone: with 9/8 (389
// MiB) it ran three times after the decode, marking the whole heap while
// facts and policy allocate (0.13 and 0.30 s instead of 0.04 and 0.24; RSS
// 358 instead of 420 MB); with 4/3 once, in the policy phase (0.28-0.34
// s); with 3/2 at most once, sometimes still there.
// A module (ext4.ko, 19 MB: 77 MiB) never reaches it. Each worker beyond
// two adds 4 MiB for its buffers.
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
	if jobs > 2 {
		limit += int64(jobs-2) * 4 << 20
	}
	debug.SetMemoryLimit(limit)
}

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
