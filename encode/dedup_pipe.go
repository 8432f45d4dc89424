package encode

import (
	"sync"
	"time"

	"github.com/btfgate/btfgate/btf"
)

// dedupPipe runs the primitive and struct passes of the dedup on a
// goroutine of its own while the units are still being decoded: after each
// splice, the splicing goroutine publishes a View of the types so far, and
// the dedup goroutine takes in whatever is new since its last batch (see
// btf.Deduplication: a unit refers only to its own types and earlier ones,
// so any run of whole units is a valid batch). Finish then runs, after the
// functions phase, the passes that need every type.
//
// With fold, the goroutine folds the types after the last batch (see
// foldFrom) before it starts the reference passes, and says so through
// advanced; without, it resolves advanced at the same point, having
// folded nothing.
type dedupPipe struct {
	mu       sync.Mutex
	latest   *btf.Types    // the newest View, nil once taken
	notify   chan struct{} // a View is waiting
	closed   chan struct{} // no more Views
	once     sync.Once     // closes closed
	fold     bool
	advanced *future[folding] // what the first fold did
	ran      *future[pipeRun]
}

// pipeRun is what the dedup goroutine leaves: the dedup with every View
// taken in, and the time its steps took.
type pipeRun struct {
	dd   *btf.Deduplication // nil if the dedup could not be set up
	busy time.Duration
}

// startDedupPipe starts the goroutine that sets up the dedup of all
// (empty, or holding only what comes before the units: for split BTF, the
// setup takes in the base's types) with room for types more types
// of words more words, then runs the passes as Views come.
func startDedupPipe(all *btf.Types, types, words int, fold bool) *dedupPipe {
	p := &dedupPipe{notify: make(chan struct{}, 1), closed: make(chan struct{}), fold: fold,
		advanced: newFuture[folding]()}
	start := all.View()
	p.ran = goFuture(func() (pipeRun, error) { return p.run(start, types, words) })
	return p
}

// run is the dedup goroutine: it stops at the first error, and after the
// last View it folds the types (with p.fold) and starts the reference
// passes.
func (p *dedupPipe) run(start *btf.Types, types, words int) (pipeRun, error) {
	var r pipeRun
	var err error
	folded := folding{types: -1}
	timed := func(step func() error) {
		began := time.Now()
		err = step()
		r.busy += time.Since(began)
	}
	timed(func() (err error) {
		r.dd, err = btf.StartPipelinedDedup(start, types, words)
		return err
	})
	for {
		last := false
		select {
		case <-p.notify:
		case <-p.closed:
			last = true
		}
		p.mu.Lock()
		v := p.latest
		p.latest = nil
		p.mu.Unlock()
		if v != nil && err == nil {
			timed(func() error { return r.dd.Advance(v) })
		}
		if last {
			if err == nil && p.fold {
				timed(func() error { folded.types, folded.released = r.dd.Fold(); return nil })
			}
			p.advanced.resolve(folded, nil)
			if err == nil {
				timed(r.dd.StartRefs)
			}
			return r, err
		}
	}
}

// publish hands the types all holds now to the dedup goroutine. Only the
// goroutine appending to all calls it.
func (p *dedupPipe) publish(all *btf.Types) {
	v := all.View()
	p.mu.Lock()
	p.latest = v
	p.mu.Unlock()
	select {
	case p.notify <- struct{}{}:
	default: // a notification is pending; it will find this View
	}
}

// close says no more units come; the goroutine takes in the last View and
// returns. Safe to call more than once.
func (p *dedupPipe) close() { p.once.Do(func() { close(p.closed) }) }

// wait closes the pipe and waits for the goroutine.
func (p *dedupPipe) wait() (pipeRun, error) {
	p.close()
	return p.ran.wait()
}

// finish waits for the goroutine, then takes in the types appended since
// (functions and sections) and runs the rest of the dedup. It returns the
// goroutine's run with the result.
func (p *dedupPipe) finish() (*btf.Types, pipeRun, error) {
	r, err := p.wait()
	if err != nil {
		return nil, r, err
	}
	out, err := r.dd.Finish()
	return out, r, err
}
