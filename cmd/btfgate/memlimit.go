package main

import (
	"os"
	"runtime/debug"
)

// setMemoryLimit gives the Go runtime a soft memory limit scaled to the
// input, unless GOMEMLIMIT is set: the heap then stays near what the encode
// needs instead of growing to twice its live size between collections. On
// the corpus kernel (303 MB file) this keeps peak RSS below pahole's at a
// few percent more CPU (docs/performance.md).
func setMemoryLimit(input string) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	const floor = 256 << 20
	limit := int64(floor)
	if st, err := os.Stat(input); err == nil && st.Size()+16<<20 > limit {
		limit = st.Size() + 16<<20
	}
	debug.SetMemoryLimit(limit)
}
