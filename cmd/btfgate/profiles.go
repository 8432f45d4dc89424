package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the profiles the developer flags ask for: a CPU
// profile, a heap profile of every allocation (written when the returned
// function runs) and an execution trace. Empty names are skipped.
func startProfiles(cpu, mem, tr string) (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if mem != "" {
		f, err := os.Create(mem)
		if err != nil {
			return nil, fmt.Errorf("--memprofile: %w", err)
		}
		old := runtime.MemProfileRate
		runtime.MemProfileRate = 1
		stops = append(stops, func() error {
			runtime.GC() // the profile is as of the last collection
			werr := pprof.Lookup("allocs").WriteTo(f, 0)
			runtime.MemProfileRate = old
			return errors.Join(werr, f.Close())
		})
	}
	if tr != "" {
		f, err := os.Create(tr)
		if err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--trace: %w", err)
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	return stop, nil
}
