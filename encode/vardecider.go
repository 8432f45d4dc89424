package encode

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
)

// varChunk is how many variables one evaluation of the variable policies
// decides while the units are still walked. Chunks are cut by count, not
// by unit or worker, so the decisions and errors do not depend on -j.
const varChunk = 4096

// varDecider decides variables chunk by chunk beside the unit walks, on a
// goroutine of its own, as their facts are spliced in unit order: a
// variable's decision depends on its facts alone, so deciding in chunks
// gives the decisions one evaluation would, and the policy phase is left
// with the last chunk.
type varDecider struct {
	policy  func() (*engine.Engine, error)
	chunks  chan []facts.Variable
	done    chan struct{}
	sent    int // how many of the spliced facts the chunks hold
	closing sync.Once
	// Set by the goroutine, read after done:
	decided    [][]engine.Decision // by chunk
	violations []engine.Violation
	err        error // the first chunk's error other than deny rules'
}

func newVarDecider(policy func() (*engine.Engine, error)) *varDecider {
	d := &varDecider{policy: policy, chunks: make(chan []facts.Variable, 64), done: make(chan struct{})}
	go d.run()
	return d
}

func (d *varDecider) run() {
	defer close(d.done)
	var pol *engine.Engine
	for chunk := range d.chunks {
		if d.err != nil {
			continue // drain
		}
		if pol == nil {
			if pol, d.err = d.policy(); d.err != nil {
				continue
			}
		}
		ds, err := pol.DecideVariables(context.Background(), chunk, 1)
		if v := refusal(err); v != nil && ds != nil {
			d.violations = append(d.violations, v.Violations...)
			err = nil
		}
		if err != nil {
			d.err = err
			continue
		}
		d.decided = append(d.decided, ds)
	}
}

// add takes the facts of every variable spliced so far (ids set; the
// facts of earlier calls unchanged, at the same places) and sends every
// full chunk of those not yet sent. A chunk is a window on all, not a
// copy: the facts are neither written nor moved once spliced.
func (d *varDecider) add(all []facts.Variable) {
	for len(all)-d.sent >= varChunk {
		d.chunks <- all[d.sent : d.sent+varChunk : d.sent+varChunk]
		d.sent += varChunk
	}
}

// abandon ends the goroutine without deciding the rest, if finish has not
// (the encode failed); it may be called more than once.
func (d *varDecider) abandon() {
	d.closing.Do(func() { close(d.chunks) })
	<-d.done
}

// finish decides the facts of all (add's argument, complete) not sent yet
// and returns every decision, in id order, as engine.DecideVariables over
// all of them would: with deny rules' violations, the decisions and a
// *engine.ViolationsError listing them all.
func (d *varDecider) finish(all []facts.Variable) ([]engine.Decision, error) {
	if len(all) > d.sent {
		d.chunks <- all[d.sent:len(all):len(all)]
		d.sent = len(all)
	}
	d.closing.Do(func() { close(d.chunks) })
	<-d.done
	if d.err != nil {
		return nil, d.err
	}
	n := 0
	for _, ds := range d.decided {
		n += len(ds)
	}
	decisions := make([]engine.Decision, 0, n)
	for _, ds := range d.decided {
		decisions = append(decisions, ds...)
	}
	d.decided = nil
	if len(d.violations) > 0 {
		vs := d.violations
		slices.SortFunc(vs, func(a, b engine.Violation) int {
			return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
		})
		return decisions, &engine.ViolationsError{Violations: vs}
	}
	return decisions, nil
}
