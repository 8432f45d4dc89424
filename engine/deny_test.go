package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

// guardRule refuses to leave out a function the kernel looks up by BTF
// id, saying which rules left it out: it reads the outcome.
const guardRule = `package btfgate.functions

import data.btfgate.decision

deny.guard[id] contains msg if {
	some id in decision.left_out
	input.functions[id].btf_id_ref
	msg := concat("; ", ["referenced from .BTF_ids", why(id)])
}

why(id) := sprintf("excluded by %s", [concat(", ", [sprintf("exclude.%s", [r]) | some r in decision.excluded_by[id]])]) if {
	decision.excluded_by[id]
} else := sprintf("skipped by %s", [concat(", ", [sprintf("skip.%s", [r]) | some r in decision.skipped_by[id]])])
`

// kfuncRule is a deny rule in the comprehension form: kfuncs must stay in.
const kfuncRule = `package btfgate.functions

deny.kfuncs_stay := {id: {"kfunc left out"} |
	some id in data.btfgate.decision.left_out
	input.functions[id].kfunc
}
`

func btfID(f *facts.Function) { f.BTFIDRef = true }

func TestDenyPassesWhenNothingIsRefused(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules:  []Module{{Name: "guard.rego", Source: guardRule}},
		Data:     map[string]any{"deny": []any{"x_*"}},
	})
	ds := decide(t, e,
		fn(1, "x_plain", nil),
		fn(2, "y_ref", btfID),
		fn(3, "z_ref_reordered", func(f *facts.Function) { f.Reordered = true }),
	)
	if ds[0].Include || !ds[1].Include || ds[2].Include {
		t.Errorf("decisions %+v: want x_plain and z_ref_reordered out, y_ref in", ds)
	}
}

func TestDenyRefusesOutcome(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules:  []Module{{Name: "examples/guard.rego", Source: guardRule}},
		Data:     map[string]any{"deny": []any{"sys_*"}, "allow_hiding_btf_ids": true}, // the user guard alone
	})
	ds, err := e.DecideFunctions(context.Background(), []facts.Function{
		fn(1, "sys_close", nil),
		fn(2, "sys_open", btfID),
	}, 1)
	if len(ds) != 2 || ds[0].Include || ds[1].Include || !slices.Equal(rules(ds[1].Reasons), []string{"config_deny"}) {
		t.Errorf("decisions %+v: want both left out by config_deny, returned with the violation", ds)
	}
	want := "policy violation: guard (examples/guard.rego): sys_open: referenced from .BTF_ids; excluded by exclude.config_deny"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	var ve *ViolationsError
	if !errors.As(err, &ve) || len(ve.Violations) != 1 {
		t.Fatalf("err is %T, want a *ViolationsError with one violation", err)
	}
	if v := ve.Violations[0]; v.ID != 2 || v.Name != "sys_open" || v.Rule != "guard" || v.Module != "examples/guard.rego" {
		t.Errorf("violation %+v", v)
	}
}

func TestDenySeesSkipsAndEveryRule(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules: []Module{
			{Name: "guard.rego", Source: guardRule},
			{Name: "kfuncs.rego", Source: kfuncRule},
		},
	})
	_, err := e.DecideFunctions(context.Background(), []facts.Function{
		fn(1, "a", func(f *facts.Function) { btfID(f); f.Reordered, f.UnexpectedReg = true, true }),
		fn(2, "b", func(f *facts.Function) { btfID(f); f.Kfunc = true; f.AmbiguousAddr = true }),
	}, 2)
	var ve *ViolationsError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *ViolationsError", err)
	}
	var got []string
	for _, v := range ve.Violations {
		got = append(got, v.String())
	}
	want := []string{
		"guard (guard.rego): a: referenced from .BTF_ids; skipped by skip.reordered_parameters, skip.unexpected_register",
		"guard (guard.rego): b: referenced from .BTF_ids; skipped by skip.ambiguous_address",
		"kfuncs_stay (kfuncs.rego): b: kfunc left out",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(err.Error(), "policy violation: deny rules refuse 3 outcome(s)\n  guard (guard.rego): a: ") {
		t.Errorf("error text: %s", err)
	}
}

// TestDenyErrorIndependentOfJobs: many violations are listed up to the
// limit, in id order, whatever the batches.
func TestDenyErrorIndependentOfJobs(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules:  []Module{{Name: "guard.rego", Source: guardRule}},
		Data:     map[string]any{"deny": []any{"*"}, "allow_hiding_btf_ids": true}, // the user guard alone
	})
	smallBatches(e)
	var fns []facts.Function
	for i := range 25 {
		fns = append(fns, fn(100-i, fmt.Sprintf("f%02d", i), btfID))
	}
	var first string
	for _, jobs := range []int{1, 2, 7} {
		_, err := e.DecideFunctions(context.Background(), fns, jobs)
		if err == nil {
			t.Fatalf("jobs %d: no error", jobs)
		}
		if first == "" {
			first = err.Error()
		} else if err.Error() != first {
			t.Errorf("jobs %d: error differs:\n%s\nwant\n%s", jobs, err, first)
		}
	}
	lines := strings.Split(first, "\n")
	if len(lines) != 1+maxViolations+1 || lines[len(lines)-1] != "  ... and 15 more" ||
		!strings.Contains(lines[1], ": f24: ") {
		t.Errorf("error lists:\n%s", first)
	}
}

// TestDenyAfterConflicts: a conflict leaves no outcome to judge, so it is
// the error.
func TestDenyAfterConflicts(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules:  []Module{{Name: "guard.rego", Source: guardRule}},
		Data:     map[string]any{"deny": []any{"f"}, "keep": []any{"f"}},
	})
	_, err := e.DecideFunctions(context.Background(), []facts.Function{fn(1, "f", btfID)}, 1)
	if err == nil || !strings.HasPrefix(err.Error(), "policy conflict:") {
		t.Errorf("err = %v, want the conflict", err)
	}
}

func TestDenyCycleIsACompileError(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"deny reads the result", `package btfgate.functions

deny.loop[id] contains "x" if {
	some id in data.btfgate.decision.result.left_out
}
`, "loop.rego:3:"},
		{"keep reads the outcome", `package btfgate.functions

keep.loop[id] contains "x" if {
	some id in data.btfgate.decision.left_out
}
`, "loop.rego:3:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(context.Background(), Config{Modules: []Module{{Name: "loop.rego", Source: tc.src}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "rego_recursion_error") {
				t.Errorf("err = %v, want a recursion error at %s", err, tc.want)
			}
		})
	}
}

func TestDenyMalformed(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"not keyed by id", `package btfgate.functions
deny.by_name[name] contains "x" if name := input.functions[_].name`,
			`deny.by_name (bad.rego): key "f" is not the id of a function in input.functions`},
		{"single value", `package btfgate.functions
deny.single[id] := "msg" if input.functions[id].name == "f"`,
			`deny.single (bad.rego): entry for 1 (f) is string, want a set: write deny.single[id] contains VALUE`},
		{"number message", `package btfgate.functions
deny.nums[id] contains 42 if input.functions[id].name == "f"`,
			`function f (id 1): deny.nums: message 42 is not a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, Config{Modules: []Module{{Name: "bad.rego", Source: tc.src}}})
			_, err := e.DecideFunctions(context.Background(), []facts.Function{fn(1, "f", nil)}, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
