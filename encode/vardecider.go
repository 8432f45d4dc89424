package encode

import (
	"context"
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
	sent    int // how many of the spliced facts the chunks hold
	closing sync.Once
	decided *future[varDecisions]
}

// varDecisions is what the goroutine decided: each chunk's decisions, in
// order, and the deny rules' violations.
type varDecisions struct {
	byChunk    [][]engine.Decision
	violations []engine.Violation
}

func newVarDecider(policy func() (*engine.Engine, error)) *varDecider {
	d := &varDecider{policy: policy, chunks: make(chan []facts.Variable, 64)}
	d.decided = goFuture(d.run)
	return d
}

// run decides the chunks as they come; its error is the first chunk's
// other than deny rules', after which it only drains.
func (d *varDecider) run() (varDecisions, error) {
	var out varDecisions
	var pol *engine.Engine
	var err error
	for chunk := range d.chunks {
		if err != nil {
			continue // drain
		}
		if pol == nil {
			if pol, err = d.policy(); err != nil {
				continue
			}
		}
		ds, derr := pol.DecideVariables(context.Background(), chunk, 1)
		if v := refusal(derr); v != nil && ds != nil {
			out.violations = append(out.violations, v.Violations...)
			derr = nil
		}
		if derr != nil {
			err = derr
			continue
		}
		out.byChunk = append(out.byChunk, ds)
	}
	return out, err
}

// add sends the next chunk of the spliced facts: varChunk of them, ids
// following those sent before. A chunk is not a copy: the facts are
// neither written nor moved once spliced (unitResults' blocks).
func (d *varDecider) add(chunk []facts.Variable) {
	d.chunks <- chunk
	d.sent += len(chunk)
}

// abandon ends the goroutine without deciding the rest, if finish has not
// (the encode failed); it may be called more than once.
func (d *varDecider) abandon() {
	d.closing.Do(func() { close(d.chunks) })
	d.decided.wait()
}

// flush sends the facts of all (add's argument, complete) not sent yet
// and ends the chunks: the goroutine decides the last of them while the
// caller goes on (the function policies). finish flushes too.
func (d *varDecider) flush(all []facts.Variable) {
	if len(all) > d.sent {
		d.chunks <- all[d.sent:len(all):len(all)]
		d.sent = len(all)
	}
	d.closing.Do(func() { close(d.chunks) })
}

// finish decides the facts of all (add's argument, complete) not sent yet
// and returns every decision, in id order, as engine.DecideVariables over
// all of them would: with deny rules' violations, the decisions and a
// *engine.ViolationsError listing them all.
func (d *varDecider) finish(all []facts.Variable) ([]engine.Decision, error) {
	d.flush(all)
	r, err := d.decided.wait()
	if err != nil {
		return nil, err
	}
	n := 0
	for _, ds := range r.byChunk {
		n += len(ds)
	}
	decisions := make([]engine.Decision, 0, n)
	for _, ds := range r.byChunk {
		decisions = append(decisions, ds...)
	}
	d.decided = resolved(varDecisions{}, nil) // the chunks' decisions can go
	if len(r.violations) > 0 {
		vs := r.violations
		engine.SortViolations(vs)
		return decisions, &engine.ViolationsError{Violations: vs}
	}
	return decisions, nil
}
