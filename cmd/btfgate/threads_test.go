package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/btfgate/btfgate/encode"
)

func TestParseRunnable(t *testing.T) {
	for _, c := range []struct {
		line     string
		runnable int
		ok       bool
	}{
		{"0.59 1.38 1.14 1/82 11279\n", 1, true},
		{"2.10 1.94 1.20 3/301 4242\n", 3, true},
		{"1.00 1.00 1.00 17/1024 1", 17, true},
		{"0.59 1.38 1.14\n", 0, false},
		{"0.59 1.38 1.14 82 11279\n", 0, false},
		{"0.59 1.38 1.14 x/82 11279\n", 0, false},
		{"", 0, false},
	} {
		n, ok := parseRunnable([]byte(c.line))
		if n != c.runnable || ok != c.ok {
			t.Errorf("parseRunnable(%q) = %d, %v; want %d, %v", c.line, n, ok, c.runnable, c.ok)
		}
	}
}

func TestTaskState(t *testing.T) {
	for _, c := range []struct {
		stat  string
		state byte
	}{
		{"31383 (btfgate) R 31380 31383 1 0 -1", 'R'},
		{"42 (a (b) c) S 1 42 42 0 -1", 'S'},
		{"7 (x)", 0},
		{"no parentheses", 0},
	} {
		if got := taskState([]byte(c.stat)); got != c.state {
			t.Errorf("taskState(%q) = %q, want %q", c.stat, got, c.state)
		}
	}
}

// TestOwnRunnable checks that the caller's own thread counts: it is
// running while it reads.
func TestOwnRunnable(t *testing.T) {
	n, ok := ownRunnable()
	if !ok {
		t.Skip("no /proc/self/task here")
	}
	if n < 1 {
		t.Errorf("ownRunnable() = %d, want at least the caller's thread", n)
	}
}

func TestParallelMake(t *testing.T) {
	for _, c := range []struct {
		makeflags string
		parallel  bool
	}{
		{" -j2 --jobserver-auth=3,4", true}, // make 4.3, make -j2
		{"rR -j8 --jobserver-auth=fifo:/tmp/GMfifo1", true},
		{"-j", true},
		{"--no-print-directory -j", true},
		{" --jobserver-fds=3,4 -j", true},
		{"", false},
		{"rR", false},
		{" -j1", false},
		{"-jx", false},
		{"--no-print-directory", false},
	} {
		if got := parallelMake(c.makeflags); got != c.parallel {
			t.Errorf("parallelMake(%q) = %v, want %v", c.makeflags, got, c.parallel)
		}
	}
}

// TestConfirmThreads checks that an encode of a large input that a
// parallel make runs gets back the CPUs the first sample took away when
// the second finds them idle, and that nothing else does.
func TestConfirmThreads(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	runtime.SetDefaultGOMAXPROCS()
	procs := runtime.GOMAXPROCS(0) // what confirmThreads gives back: the CPUs usable here
	if procs < 2 {
		t.Skip("one usable CPU: fitThreads never takes any away")
	}
	dir := t.TempDir()
	large, small := filepath.Join(dir, "large.ko"), filepath.Join(dir, "small.ko")
	for path, size := range map[string]int64{large: encode.SecondWorkerFrom, small: encode.SecondWorkerFrom - 1} {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	for _, c := range []struct {
		name      string
		makeflags string
		input     string
		fitted    int
		others    int
		want      int
		sampled   bool
	}{
		{"idle now", "-j2", large, 1, 0, procs, true},
		{"still busy", "-j2", large, 1, procs, 1, true},
		{"one CPU busy", " -j8 --jobserver-auth=3,4", large, 1, 1, procs - 1, true},
		{"small input", "-j2", small, 1, 0, 1, false},
		{"no parallel make", "", large, 1, 0, 1, false},
		{"not fitted", "-j2", large, runtime.NumCPU(), 0, runtime.NumCPU(), false},
		{"a missing input", "-j2", filepath.Join(dir, "none"), 1, 0, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MAKEFLAGS", c.makeflags)
			t.Setenv("GOMAXPROCS", "")
			runtime.GOMAXPROCS(c.fitted)
			sampled := false
			confirmThreads(c.input, func() (int, bool) { sampled = true; return c.others, true })
			if got := runtime.GOMAXPROCS(0); got != c.want || sampled != c.sampled {
				t.Errorf("GOMAXPROCS %d, sampled %v; want %d, %v", got, sampled, c.want, c.sampled)
			}
		})
	}
}
