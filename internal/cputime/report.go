package cputime

import (
	"testing"
	"time"
)

// ReportPerOp adds the CPU time per operation since before (a Process
// value taken before the benchmark's loop) to b as "cpu-ns/op".
func ReportPerOp(b *testing.B, before time.Duration) {
	b.ReportMetric(float64((Process()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
