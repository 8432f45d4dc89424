package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
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
	// evaluation started, in bytes (zero: DefaultMemory).
	Memory uint64
	// Auto, with Memory zero, sets the limit relative to the work
	// (autoCeiling): the peak of a runaway policy then stays within about
	// twice what the honest work takes. It reads the process's heap and
	// soft memory limit, so it holds for a process that runs one encode at
	// a time with a soft limit sized for it, as the CLI does; encodes
	// running side by side in one process would take each other's work
	// for the policy's.
	Auto bool
}

// The default limits: far above what the default policies take on a whole
// kernel (well under a second, a few MiB per evaluation), and low enough
// that a runaway policy is stopped before it takes the machine down.
const (
	DefaultTimeout = 60 * time.Second
	DefaultMemory  = 4 << 30
)

// autoFloor is the least an automatic memory limit lets an evaluation
// add to the heap: the default policies add at most a few MiB to it on a
// whole kernel (each evaluation is a batch of functions or a chunk of
// variables), a user's policy with large comprehensions more.
const autoFloor = 4 << 20

// orDefaults returns l with zero fields set to the defaults.
func (l Limits) orDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.Memory == 0 && !l.Auto {
		l.Memory = DefaultMemory
	}
	return l
}

// ceiling is the heap size, in bytes of heap objects, past which the
// evaluation that started when the heap held start bytes is stopped; limit
// is how the error states it. With Memory set it is start + Memory; with
// Auto, relative to the work (autoCeiling).
func (l Limits) ceiling(start uint64) (ceiling uint64, limit string) {
	if l.Memory != 0 {
		return start + l.Memory, formatBytes(l.Memory)
	}
	c := autoCeiling(start)
	return c, formatBytes(roundMiB(c)) + " of heap"
}

// autoCeiling is the automatic limit: the evaluation may take the heap to
// its base plus a quarter of its size at the start, at least autoFloor.
// The base is the largest of the heap at the start, the collector's goal
// (the garbage an honest evaluation leaves stays under it) and, when the
// process has a soft memory limit (the CLI sets it to what the encode of
// its input needs), that limit up to twice the heap at the start: work
// beside the evaluation — the decode a variable chunk is decided beside,
// the dedup beside the decisions — may double the heap while it runs and
// not be taken for the policy's. A runaway policy thus peaks at about
// twice the honest work's heap.
func autoCeiling(start uint64) uint64 {
	s := []metrics.Sample{{Name: goalMetric}, {Name: limitMetric}}
	metrics.Read(s)
	base := max(start, s[0].Value.Uint64())
	if lim := s[1].Value.Uint64(); lim < math.MaxInt64 {
		base = max(base, min(lim, 2*start))
	}
	return base + max(start/4, autoFloor)
}

// roundMiB rounds n up to a whole MiB.
func roundMiB(n uint64) uint64 { return (n + 1<<20 - 1) &^ (1<<20 - 1) }

// LimitError is an evaluation stopped by its Limits.
type LimitError struct {
	What  string // "time" or "memory"
	Limit string // the limit, as the flag that raises it takes it
	Flag  string // the flag that raises it
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("policy evaluation stopped: it used more %s than its limit of %s (raise it with %s)", e.What, e.Limit, e.Flag)
}

// The runtime/metrics samples the memory watch reads: the bytes of heap
// objects, live or not yet swept; the heap size the collector aims to stay
// under; the soft memory limit (math.MaxInt64 when none is set).
const (
	heapMetric  = "/memory/classes/heap/objects:bytes"
	goalMetric  = "/gc/heap/goal:bytes"
	limitMetric = "/gc/gomemlimit:bytes"
)

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
	var limit string // set by the watch before watched is closed
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		sample := []metrics.Sample{{Name: heapMetric}}
		metrics.Read(sample)
		var ceiling uint64
		ceiling, limit = l.ceiling(sample[0].Value.Uint64())
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
				if sample[0].Value.Uint64() > ceiling {
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
			return &LimitError{What: "memory", Limit: limit, Flag: "--policy-memory"}
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
