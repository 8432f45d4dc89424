package main

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/btfgate/btfgate/encode"
)

// fitThreads gives a process that make runs as one of several jobs at
// once (MAKEFLAGS has -jN, N > 1, or -j) the CPUs that are idle as it
// starts, at least one: as many as GOMAXPROCS less the tasks of other
// processes that are runnable then. In a kernel build's module encodes
// (make -jN on N CPUs, one process per module) that is one: a second
// thread finds no idle CPU there, and only adds the runtime's hand-offs
// and spinning between the two while the other jobs wait
// (docs/performance.md, "Session 18: one thread when the CPUs are busy").
// The vmlinux encode of the same build, which runs alone, keeps them all
// (confirmThreads makes sure of it), and so does every process outside a
// parallel make. The workers (-j) stay as asked, and the output depends on
// neither. GOMAXPROCS in the environment, when set, decides instead. Like
// the other settings of the process, it is main's, not the commands'.
func fitThreads() {
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 || !fitsThreads() {
		return
	}
	if others, ok := othersRunnable(); ok && others > 0 {
		runtime.GOMAXPROCS(max(1, procs-others))
	}
}

// fitsThreads reports whether the process fits its threads to the idle
// CPUs: make runs it as one of several jobs at once, and GOMAXPROCS is not
// in the environment.
func fitsThreads() bool {
	return os.Getenv("GOMAXPROCS") == "" && parallelMake(os.Getenv("MAKEFLAGS"))
}

// confirmThreads gives the CPUs fitThreads took away back when a second
// sample, taken as the encode of input starts, finds them idle: the count
// of runnable tasks is a sample, and on an idle machine one in eight
// counts a task too many (300 one-command make -j2 runs, 2026-12-04),
// which would leave a kernel's encode on one thread, 65 % longer (the
// corpus kernel: 5.0-5.2 instead of 3.1 s). Two samples a few
// milliseconds apart were both wrong in 3 or 4 runs of those 300. Only
// an input that may walk its units on several workers (a file of
// encode.SecondWorkerFrom bytes or more) pays for the second sample
// (about 0.3 ms): a small module's walk is one worker's anyway. It never
// takes CPUs away. sample is othersRunnable but in tests.
func confirmThreads(input string, sample func() (int, bool)) {
	if !fitsThreads() {
		return
	}
	fitted := runtime.GOMAXPROCS(0)
	if fitted >= runtime.NumCPU() {
		return // not fitted: nothing to give back
	}
	// A file holds at least its .debug_info.
	if st, err := os.Stat(input); err != nil || st.Size() < encode.SecondWorkerFrom {
		return
	}
	others, ok := sample()
	if !ok {
		return
	}
	runtime.SetDefaultGOMAXPROCS()
	procs := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(max(fitted, procs-others, 1))
}

// parallelMake reports whether MAKEFLAGS, as make passes it to the
// commands it runs, says make runs more than one job at a time: a word
// -j (no limit) or -jN with N > 1, or the jobserver's (--jobserver-auth,
// or --jobserver-fds before make 4.2). Single-letter flags may come first
// without a dash ("rR -j8").
func parallelMake(makeflags string) bool {
	for _, w := range strings.Fields(makeflags) {
		switch {
		case w == "-j", strings.HasPrefix(w, "--jobserver-auth="), strings.HasPrefix(w, "--jobserver-fds="):
			return true
		case strings.HasPrefix(w, "-j"):
			if n, err := strconv.Atoi(w[2:]); err == nil && n > 1 {
				return true
			}
		}
	}
	return false
}

// othersRunnable returns how many tasks of other processes are runnable
// now: /proc/loadavg's count of runnable tasks less this process's own
// (the Go runtime's threads wake and spin at its start), counted before
// and after it and the larger taken, so that a thread of ours that wakes
// in between is not taken for another process's. ok is false where the
// counts cannot be read.
func othersRunnable() (int, bool) {
	before, ok1 := ownRunnable()
	b, err := os.ReadFile("/proc/loadavg")
	after, ok2 := ownRunnable()
	if err != nil || !ok1 || !ok2 {
		return 0, false
	}
	all, ok := parseRunnable(b)
	if !ok {
		return 0, false
	}
	return max(all-max(before, after), 0), true
}

// parseRunnable reads the count of runnable tasks in a /proc/loadavg line
// (its fourth field, "runnable/total").
func parseRunnable(loadavg []byte) (int, bool) {
	fields := bytes.Fields(loadavg)
	if len(fields) < 4 {
		return 0, false
	}
	runnable, _, found := bytes.Cut(fields[3], []byte("/"))
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(string(runnable))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// ownRunnable counts the threads of this process that are runnable (state
// R in /proc/self/task/*/stat), the caller's among them.
func ownRunnable() (int, bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, false
	}
	n := 0
	for _, t := range tasks {
		stat, err := os.ReadFile("/proc/self/task/" + t.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		if taskState(stat) == 'R' {
			n++
		}
	}
	return n, true
}

// taskState returns the state letter of a /proc/PID/task/TID/stat line,
// the field after the command name in parentheses (which may hold spaces
// and parentheses itself); 0 if there is none.
func taskState(stat []byte) byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || len(stat) < i+3 {
		return 0
	}
	return stat[i+2]
}
