package encode

import "runtime"

// workers is the number of worker goroutines an encode runs for the
// requested n: GOMAXPROCS for n <= 0, and at most maxWorkersPerCPU per
// usable CPU, since more only costs memory (each worker holds a unit's
// buffers, and the splice window is twice the workers). The output does not
// depend on it.
func workers(n int) int {
	procs := runtime.GOMAXPROCS(0)
	if n <= 0 {
		return procs
	}
	return min(n, maxWorkersPerCPU*procs)
}

const maxWorkersPerCPU = 4
