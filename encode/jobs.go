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

// decodeWorkers is how many of an encode's jobs workers walk and convert
// the units of an input with infoSize bytes of .debug_info, on procs CPUs
// (GOMAXPROCS): one below SecondWorkerFrom, all of them from it on, but
// one on one CPU. A small input's decode is a few milliseconds, overlapped
// with the dedup's pipe and the policies' set-up: a second walker
// shortened it by 2 % at most (in wall time, alone on 2 CPUs) and cost its
// buffers and a second set of the allocator's per-CPU spans, 2.5-7 MiB at
// the peak (docs/performance.md, "Session 16: one walker for a small
// input"). On one CPU (a module encode in a busy kernel build: cmd/btfgate
// fitThreads) a second walker only takes turns with the first: it cost
// nf_conntrack.ko 10 % more CPU and 3.5 MiB more at the peak ("Session
// 18: one thread when the CPUs are busy"). The output does not depend on
// it.
func decodeWorkers(jobs, infoSize, procs int) int {
	if infoSize < SecondWorkerFrom || procs == 1 {
		return 1
	}
	return jobs
}

// namesBesideFrom is the number of walkers, on at least as many CPUs, from
// which a kernel's decode workers map the names the splicer has met and
// hash the definitions the splicer checks (btf.NameHints,
// Fragment.PrepareKnown) instead of leaving it to the splice, which runs
// on one goroutine in unit order: with four walkers on four CPUs or more
// that goroutine, not the walkers or the CPUs, bounds the decode (corpus
// kernel: 1.0-1.4 s against the walkers' 3.7 s of CPU). With fewer it
// costs more than it saves: on 2 CPUs the splice lost 0.35-0.5 s and the
// workers gained 0.6-0.9 s (docs/performance.md, "Session 20: the splice's
// one goroutine"). The output does not depend on it.
const namesBesideFrom = 4

// SecondWorkerFrom is the size of .debug_info from which an encode walks
// units on more than one worker: nf_conntrack.ko (3.0 MB) is 8 % faster
// on two, igb.ko (1.5 MB) and e1000e.ko (1.7 MB) within 2 %.
const SecondWorkerFrom = 2 << 20
