package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/btfgate/btfgate/facts"
)

// TestErrorCodes: each kind of engine failure, provoked for real, carries
// its code through the wrapping, and the detail types stay reachable.
func TestErrorCodes(t *testing.T) {
	fns := []facts.Function{{ID: 1, Name: "f"}, {ID: 2, Name: "g_key"}}
	module := func(src string) Config {
		cfg := defaults()
		cfg.Modules = []Module{{Name: "user.rego", Source: src}}
		return cfg
	}
	cases := []struct {
		name string
		cfg  Config
		fns  []facts.Function
		want Code
	}{
		{"parse", module("package btfgate.functions\nskip.x := {"), fns, CodeParse},
		{"compile: unknown fact", module(`package btfgate.functions
skip.x := {id: {"m"} | input.functions[id].nmae == "f"}`), fns, CodeCompile},
		{"compile: forbidden builtin", module(`package btfgate.functions
skip.x := {id: {"m"} | input.functions[id]; http.send({}) == {}}`), fns, CodeCompile},
		{"data", Config{Features: defaults().Features, Data: map[string]any{"deny": 3}}, fns, CodeData},
		{"eval", module(`package btfgate.functions
skip.x := {id: {"m"} | input.functions[id]; to_number("not a number") > 0}`), fns, CodeEval},
		{"document", module(`package btfgate.functions
skip.x := {id: "not a set" | input.functions[id]}`), fns, CodeDocument},
		{"conflict", module(`package btfgate.functions
keep.a := {id: {"a"} | input.functions[id].name == "f"}
exclude.b := {id: {"b"} | input.functions[id].name == "f"}`), fns, CodeConflict},
		{"denied", module(`package btfgate.functions
deny.keys := {id: {"no keys"} | some id, f in input.functions; endswith(f.name, "_key"); not data.btfgate.decision.left_out[id]}`), fns, CodeDenied},
		{"limit", func() Config {
			c := module(`package btfgate.functions
exclude.spin[id] contains "never" if {
	some id, _ in input.functions
	count([x | some a in numbers.range(1, 100000); some b in numbers.range(1, 100000); x := a * b]) < 0
}`)
			c.Limits = Limits{Timeout: 200 * time.Millisecond, Memory: 1 << 30}
			return c
		}(), fns, CodeLimit},
		{"input", defaults(), []facts.Function{{ID: 1, Name: "f"}, {ID: 1, Name: "g"}}, CodeInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(context.Background(), c.cfg)
			if err == nil {
				_, err = e.DecideFunctions(context.Background(), c.fns, 1)
			}
			if err == nil {
				t.Fatalf("no error, want one with code %s", c.want)
			}
			if got := CodeOf(err); got != c.want {
				t.Errorf("code %q, want %q: %v", got, c.want, err)
			}
			var pe PolicyErrors
			if (c.want == CodeParse || c.want == CodeCompile) && !errors.As(err, &pe) {
				t.Errorf("%v: no PolicyErrors in the chain", err)
			}
		})
	}
	if CodeOf(errors.New("plain")) != "" || CodeOf(nil) != "" {
		t.Error("CodeOf gives a code to an error the engine did not make")
	}
}
