package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/btfgate/btfgate/facts"
)

// TestLimitsStopRunawayPolicies: a policy that spins (nested range
// comprehensions) is stopped by the timeout, one that allocates without
// end (a range of a billion numbers) by the memory limit, the one given
// or the one relative to the heap; all with a *LimitError naming the flag
// that raises the limit, long before the machine runs out of memory.
func TestLimitsStopRunawayPolicies(t *testing.T) {
	fns := []facts.Function{{ID: 1, Name: "f"}, {ID: 2, Name: "g"}}
	cases := []struct {
		name, src, what string
		limits          Limits
	}{
		{"spin", `package btfgate.functions

exclude.spin[id] contains "never" if {
	some id, _ in input.functions
	count([x | some a in numbers.range(1, 100000); some b in numbers.range(1, 100000); x := a * b]) < 0
}
`, "time", Limits{Timeout: 2 * time.Second, Memory: 1 << 30}},
		{"range", `package btfgate.functions

exclude.big[id] contains "never" if {
	some id, _ in input.functions
	count(numbers.range(1, 1e9)) < 0
}
`, "memory", Limits{Timeout: time.Minute, Memory: 256 << 20}},
		{"range, limit relative to the heap", `package btfgate.functions

exclude.big[id] contains "never" if {
	some id, _ in input.functions
	count(numbers.range(1, 1e9)) < 0
}
`, "memory", Limits{Timeout: time.Minute, Auto: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(context.Background(), Config{
				Modules: []Module{{Name: c.name + ".rego", Source: c.src}},
				Limits:  c.limits,
			})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = e.NewSession(fns, 1).DecideFunctions(context.Background())
			var le *LimitError
			if !errors.As(err, &le) || le.What != c.what {
				t.Fatalf("error %v, want a %s LimitError", err, c.what)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("stopped after %v", took)
			}
			t.Logf("%s: %v after %v", c.name, err, time.Since(start).Round(time.Millisecond))
		})
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{"512MiB": 512 << 20, "4GiB": 4 << 30, "100": 100, "2G": 2 << 30, "64K": 64 << 10} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "0", "5TB", "12 parsecs"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}
