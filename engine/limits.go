package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"
)

// Limits bound one evaluation of the policies (a true_signature selection
// or the decisions, each over all functions): a policy that loops or
// allocates without end is stopped with an error instead of hanging or
// exhausting the machine's memory. The zero value means the defaults.
type Limits struct {
	// Timeout is the wall time an evaluation may take.
	Timeout time.Duration
	// Memory is how far the Go heap may grow over its size when the
	// evaluation started, in bytes.
	Memory uint64
}

// The default limits: far above what the default policies take on a whole
// kernel, and low enough that a runaway policy is stopped before it takes
// the machine down.
const (
	DefaultTimeout = 60 * time.Second
	DefaultMemory  = 4 << 30
)

// orDefaults returns l with zero fields set to the defaults.
func (l Limits) orDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	return l
}

// LimitError is an evaluation stopped by its Limits.
type LimitError struct {
	What  string // "time" or "memory"
	Limit string // the limit, as the flag that raises it takes it
	Flag  string // the flag that raises it
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("policy evaluation stopped: it used more %s than its limit of %s (raise it with %s)", e.What, e.Limit, e.Flag)
}

// heapMetric is the runtime/metrics sample the memory watch reads: the
// bytes of heap objects, live or not yet swept.
const heapMetric = "/memory/classes/heap/objects:bytes"

// memoryPoll is how often the memory watch samples the heap.
const memoryPoll = 5 * time.Millisecond

// bounded returns ctx limited by l, and a function that ends the watch and
// turns a stop caused by the limits into a *LimitError (any other error is
// returned as it is). The memory watch samples the heap every few
// milliseconds on a goroutine of its own and cancels ctx when it grows past
// the limit; OPA checks for cancellation between evaluation steps and inside
// its long-running builtins.
func (l Limits) bounded(ctx context.Context) (context.Context, func(error) error) {
	l = l.orDefaults()
	ctx, cancelTime := context.WithTimeout(ctx, l.Timeout)
	ctx, cancel := context.WithCancelCause(ctx)
	overMemory := errors.New("memory limit")
	quit := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		sample := []metrics.Sample{{Name: heapMetric}}
		metrics.Read(sample)
		start := sample[0].Value.Uint64()
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				metrics.Read(sample)
				if now := sample[0].Value.Uint64(); now > start && now-start > l.Memory {
					cancel(overMemory)
					return
				}
			}
		}
	}()
	return ctx, func(err error) error {
		close(quit)
		<-watched
		cause := context.Cause(ctx)
		cancel(nil)
		cancelTime()
		switch {
		case err == nil:
			return nil
		case errors.Is(cause, overMemory):
			return &LimitError{What: "memory", Limit: formatBytes(l.Memory), Flag: "--policy-memory"}
		case errors.Is(cause, context.DeadlineExceeded):
			return &LimitError{What: "time", Limit: l.Timeout.String(), Flag: "--policy-timeout"}
		}
		return err
	}
}

// formatBytes writes n in the largest binary unit that divides it.
func formatBytes(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// ParseBytes reads a size as --policy-memory takes it: a number of bytes
// with an optional unit KiB, MiB, GiB (or K, M, G, the same).
func ParseBytes(s string) (uint64, error) {
	var n uint64
	var unit string
	if _, err := fmt.Sscanf(s, "%d%s", &n, &unit); err != nil {
		if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
			return 0, fmt.Errorf("%q: want a size such as 512MiB or 4GiB", s)
		}
		unit = ""
	}
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KiB": 10, "M": 20, "MiB": 20, "G": 30, "GiB": 30}
	sh, ok := shift[unit]
	if !ok || n == 0 || n > (1<<62)>>sh {
		return 0, fmt.Errorf("%q: want a size such as 512MiB or 4GiB", s)
	}
	return n << sh, nil
}
