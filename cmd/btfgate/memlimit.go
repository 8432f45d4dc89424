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
// which the encoder releases as it goes. 48 MiB plus 9/8 of the file size
// keeps peak RSS below pahole's on the corpus kernel (303 MB file: 389 MiB)
// while the collector runs rarely, and on a module (ext4.ko, 19 MB: 70 MiB,
// enough for its base BTF) halves the RSS a fixed floor of 256 MiB gave, at
// no cost in time (docs/performance.md). Each worker beyond two adds 4 MiB
// for its buffers: at -j8 on the kernel the collector runs 14 times and
// peak RSS stays at 430 MB.
func setMemoryLimit(input string, jobs int) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(48 << 20)
	if st, err := os.Stat(input); err == nil {
		limit += st.Size() + st.Size()/8
	}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs > 2 {
		limit += int64(jobs-2) * 4 << 20
	}
	debug.SetMemoryLimit(limit)
}
