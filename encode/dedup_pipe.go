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
type dedupPipe struct {
	dd *btf.Deduplication // set by the goroutine; read after done

	mu     sync.Mutex
	latest *btf.Types    // the newest View, nil once taken
	notify chan struct{} // a View is waiting
	closed chan struct{} // no more Views
	done   chan struct{} // the goroutine has returned
	err    error         // its first error, read after done
	busy   time.Duration // time spent in Advance, read after done
	once   sync.Once     // closes closed
}

// startDedupPipe starts the goroutine that sets up the dedup of all
// (empty, or holding only what comes before the units: for split BTF, the
// setup takes in the base's 100,000 types) with room for types more types
// of words more words, then runs the passes as Views come.
func startDedupPipe(all *btf.Types, types, words int) *dedupPipe {
	p := &dedupPipe{notify: make(chan struct{}, 1), closed: make(chan struct{}), done: make(chan struct{})}
	go p.run(all.View(), types, words)
	return p
}

func (p *dedupPipe) run(start *btf.Types, types, words int) {
	defer close(p.done)
	p.timed(func() (err error) {
		p.dd, err = btf.StartPipelinedDedup(start, types, words)
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
		if v != nil && p.err == nil {
			p.timed(func() error { return p.dd.Advance(v) })
		}
		if last {
			if p.err == nil {
				p.timed(p.dd.StartRefs)
			}
			return
		}
	}
}

// timed runs a step of the goroutine, keeping its error and adding its
// time to busy.
func (p *dedupPipe) timed(step func() error) {
	began := time.Now()
	p.err = step()
	p.busy += time.Since(began)
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
func (p *dedupPipe) wait() error {
	p.close()
	<-p.done
	return p.err
}

// finish waits for the goroutine, then takes in the types appended since
// (functions and sections) and runs the rest of the dedup.
func (p *dedupPipe) finish() (*btf.Types, error) {
	if err := p.wait(); err != nil {
		return nil, err
	}
	return p.dd.Finish()
}
