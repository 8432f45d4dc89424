package encode

import (
	"runtime"
	"testing"
)

func TestWorkersClamped(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ in, want int }{
		{0, procs}, {-5, procs}, {1, 1}, {procs, procs},
		{10000000, maxWorkersPerCPU * procs},
	} {
		if got := workers(c.in); got != c.want {
			t.Errorf("workers(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
