package encode

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/btfgate/btfgate/features"
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

// TestDecodeWorkers: one walker under SecondWorkerFrom bytes of
// .debug_info or on one CPU, all of them from it on.
func TestDecodeWorkers(t *testing.T) {
	for _, c := range []struct{ jobs, info, procs, want int }{
		{1, 0, 2, 1}, {2, 0, 2, 1}, {8, SecondWorkerFrom - 1, 2, 1},
		{1, SecondWorkerFrom, 2, 1}, {2, SecondWorkerFrom, 2, 2}, {8, 200 << 20, 2, 8},
		{2, SecondWorkerFrom, 1, 1}, {8, 200 << 20, 1, 1}, {8, 200 << 20, 64, 8},
	} {
		if got := decodeWorkers(c.jobs, c.info, c.procs); got != c.want {
			t.Errorf("decodeWorkers(%d, %d, %d) = %d, want %d", c.jobs, c.info, c.procs, got, c.want)
		}
	}
}

// TestSmallInputsAnyWalkers: the committed programs of several units,
// each far under SecondWorkerFrom, give the same bytes, decisions and
// facts walked on one worker and on four, so that the parallel walk
// is checked without the corpus too (twice.gcc.exe is encoded twice: its
// first encode drops types a later unit defines again).
func TestSmallInputsAnyWalkers(t *testing.T) {
	for _, file := range []string{"groups/gcc.exe", "groups/clang19.exe", "known/plain.gcc.exe", "known/twice.gcc.exe"} {
		path := fixturePath(t, file)
		one, err := Encode(path, Options{Features: features.Default(), Jobs: 1})
		if err != nil {
			t.Fatalf("%s, one walker: %v", file, err)
		}
		four, err := Encode(path, Options{Features: features.Default(), Jobs: 4, walkAll: true})
		if err != nil {
			t.Fatalf("%s, four walkers: %v", file, err)
		}
		if procs := runtime.GOMAXPROCS(0); one.Walkers != 1 || four.Walkers != 4 || one.Threads != procs || four.Threads != procs {
			t.Errorf("%s: walkers %d and %d, threads %d and %d; want 1 and 4, %d", file, one.Walkers, four.Walkers, one.Threads, four.Threads, procs)
		}
		a, errA := one.Types.Marshal(binary.LittleEndian)
		b, errB := four.Types.Marshal(binary.LittleEndian)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: %d bytes on one walker, %d on four (%v, %v): not the same", file, len(a), len(b), errA, errB)
		}
		sameDecisions(t, four, one)
		sameFacts(t, four, one, "one walker's")
	}
}
