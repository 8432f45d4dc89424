package engine

import (
	"context"
	"testing"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

// fn is a function group that no default rule skips, changed by edit.
func fn(id int, name string, edit func(*facts.Function)) facts.Function {
	addr := 0x1000 + uint64(id)*0x40
	f := facts.Function{
		ID:        id,
		Name:      name,
		Symbols:   []facts.Symbol{{Name: name, Value: addr, Size: 0x40, Section: ".text"}},
		Instances: 1,
		Canonical: facts.Instance{Addr: addr, AddrMatchesSymbol: true},
		Section:   ".text",
	}
	if edit != nil {
		edit(&f)
	}
	return f
}

// newEngine compiles cfg or fails the test.
func newEngine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	e, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// decide decides fns with one worker or fails the test.
func decide(t testing.TB, e *Engine, fns ...facts.Function) []Decision {
	t.Helper()
	ds, err := e.DecideFunctions(context.Background(), fns, 1)
	if err != nil {
		t.Fatalf("DecideFunctions: %v", err)
	}
	return ds
}

func defaults() Config { return Config{Features: features.Default()} }

// rules lists the rule names of reasons, in order.
func rules(rs []Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Rule)
	}
	return out
}

// smallBatches lets every item be a batch of its own for e, so that tests
// of a handful of functions or variables cut them in as many batches as
// they ask for workers (minBatch).
func smallBatches(e *Engine) { e.minBatch = 1 }
