package elffile

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU adds user and system CPU time per operation to a benchmark,
// which stays meaningful on a loaded machine where ns/op does not. Call it
// with the value of cpuTimes taken before the loop.
func reportCPU(b *testing.B, before [2]time.Duration) {
	after := cpuTimes()
	n := float64(b.N)
	b.ReportMetric(float64((after[0]-before[0]).Nanoseconds())/n, "user-ns/op")
	b.ReportMetric(float64((after[1]-before[1]).Nanoseconds())/n, "sys-ns/op")
}

// cpuTimes returns the process's user and system CPU time.
func cpuTimes() [2]time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return [2]time.Duration{}
	}
	return [2]time.Duration{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}
