package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the profiles the developer flags ask for: a CPU
// profile, a heap profile of every allocation (written when the returned
// function runs) and an execution trace, each into the file create gives
// for its path. Empty names are skipped. When one cannot start, those
// started before it are stopped and its error returned. The returned
// function stops them all; calls after the first do nothing.
func startProfiles(create func(path string) (io.Writer, error), cpu, mem, tr string) (func() error, error) {
	var stops []func() error
	stopAll := func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		stops = nil
		return errors.Join(errs...)
	}
	// startTo creates path for flag and starts writing a profile to it;
	// finish ends the profile before the file is closed.
	startTo := func(flag, path string, start, finish func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		f, err := create(path)
		if err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
		if err := start(f); err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
		stops = append(stops, func() error { return finish(f) })
		return nil
	}
	oldRate := runtime.MemProfileRate
	startMem := func(io.Writer) error { runtime.MemProfileRate = 1; return nil }
	finishMem := func(w io.Writer) error {
		runtime.GC() // the profile is as of the last collection
		defer func() { runtime.MemProfileRate = oldRate }()
		return pprof.Lookup("allocs").WriteTo(w, 0)
	}
	finishCPU := func(io.Writer) error { pprof.StopCPUProfile(); return nil }
	finishTrace := func(io.Writer) error { trace.Stop(); return nil }
	for _, p := range []struct {
		flag, path    string
		start, finish func(io.Writer) error
	}{
		{"--cpuprofile", cpu, pprof.StartCPUProfile, finishCPU},
		{"--memprofile", mem, startMem, finishMem},
		{"--trace", tr, trace.Start, finishTrace},
	} {
		if err := startTo(p.flag, p.path, p.start, p.finish); err != nil {
			stopAll()
			return nil, err
		}
	}
	return stopAll, nil
}
