package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/facts"
)

func TestPolicyErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"syntax error", "package btfgate.functions\n\nskip.x[id] contains \"m\" if {\n\tinput.functions[id].name ==\n}\n",
			[]string{"bad.rego:5:1", "parsing policies"}},
		{"no package", "skip := 1\n", []string{"bad.rego:1:1"}},
		{"unsafe variable", "package btfgate.functions\n\nskip.x[id] contains msg if {\n\tinput.functions[id].reordered\n}\n",
			[]string{"bad.rego:3:", "msg is unsafe"}},
		{"undefined function", "package btfgate.functions\n\nskip.x[id] contains \"m\" if {\n\tnot_a_builtin(input.functions[id])\n}\n",
			[]string{"bad.rego:4:2", "undefined function not_a_builtin"}},
		{"rego v0 syntax", "package btfgate.functions\n\nskip[\"x\"] { true }\n",
			[]string{"bad.rego:3:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(context.Background(), Config{Modules: []Module{{Name: "bad.rego", Source: tc.src}}})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var pe PolicyErrors
			if !errors.As(err, &pe) || pe[0].File != "bad.rego" || pe[0].Line == 0 {
				t.Errorf("error %v: want PolicyErrors locating bad.rego, got %#v", err, pe)
			}
		})
	}
}

func TestEvaluationErrorNamesFileAndLine(t *testing.T) {
	src := "package btfgate.functions\n\nskip.x[id] contains msg if {\n\tinput.functions[id].name == \"f\"\n\tmsg := sprintf(\"%d\", [1 / 0])\n}\n"
	e := newEngine(t, Config{Modules: []Module{{Name: "div.rego", Source: src}}})
	_, err := e.DecideFunctions(context.Background(), []facts.Function{fn(1, "f", nil)}, 1)
	if err == nil || !strings.Contains(err.Error(), "div.rego:5:") {
		t.Errorf("err = %v, want div.rego:5:", err)
	}
}

func TestModuleNames(t *testing.T) {
	for _, cfg := range []Config{
		{Modules: []Module{{Name: "", Source: "package x"}}},
		{Modules: []Module{{Name: "a.rego", Source: "package x"}, {Name: "a.rego", Source: "package y"}}},
		{Modules: []Module{{Name: "decision.rego", Source: "package x"}}},
	} {
		if _, err := New(context.Background(), cfg); err == nil {
			t.Errorf("modules %v: no error", cfg.Modules)
		}
	}
	// A test file among the modules is not evaluated, even if it would fail
	// to compile with them.
	e := newEngine(t, Config{Modules: []Module{{Name: "x_test.rego", Source: "package btfgate.functions\n\nskip.t[id] contains \"t\" if input.functions[id]\n"}}})
	if d := decide(t, e, fn(1, "f", nil))[0]; !d.Include {
		t.Errorf("a _test.rego module was evaluated: %+v", d)
	}
}

func TestConfigDataIsChecked(t *testing.T) {
	tests := []struct {
		data map[string]any
		want string
	}{
		{map[string]any{"deny": "bpf_*"}, "data.btfgate.config.deny: want a list"},
		{map[string]any{"deny": []any{42}}, "data.btfgate.config.deny[0]"},
		{map[string]any{"keep": []any{"a", map[string]any{"reason": "x"}}}, "data.btfgate.config.keep[1]: want a string \"name\""},
		{map[string]any{"keep": []any{map[string]any{"name": "a", "reason": 1}}}, "\"reason\""},
		{map[string]any{"tags": []any{map[string]any{"name": "a"}}}, "data.btfgate.config.tags[0]: want a string \"tag\""},
		{map[string]any{"tags": []any{map[string]any{"name": "a", "tag": ""}}}, "data.btfgate.config.tags[0]: tag \"\": a decl tag must be non-empty"},
		{map[string]any{"tags": []any{map[string]any{"name": "a", "tag": "x\x00y"}}}, "without NUL bytes"},
		{map[string]any{"x": make(chan int)}, "data.btfgate.config"},
		{map[string]any{"deny": []any{"ok*", "[a-"}}, "data.btfgate.config.deny[1]: bad glob \"[a-\""},
		{map[string]any{"keep": []any{map[string]any{"name": "{a,"}}}, "data.btfgate.config.keep[0]: bad glob"},
		{map[string]any{"tags": []any{map[string]any{"name": "[", "tag": "t"}}}, "data.btfgate.config.tags[0]: bad glob"},
	}
	for _, tc := range tests {
		_, err := New(context.Background(), Config{Data: tc.data})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("data %v: err = %v, want %q", tc.data, err, tc.want)
		}
	}
	// Other keys belong to user modules and any shape goes.
	newEngine(t, Config{Data: map[string]any{"vendor": 3, "deny": []any{}}})
}

// TestRulesConflictWithConfigData: a rule may not define a document the
// configuration data holds (data.btfgate.config), as OPA refuses rules
// over stored data; without the data the module compiles.
func TestRulesConflictWithConfigData(t *testing.T) {
	mod := Module{Name: "config.rego", Source: "package btfgate.config\n\nvendor := 1\n"}
	_, err := New(context.Background(), Config{Modules: []Module{mod}, Data: map[string]any{"vendor": 3}})
	var pe PolicyErrors
	if !errors.As(err, &pe) || pe[0].File != "config.rego" || pe[0].Line != 3 ||
		!strings.Contains(err.Error(), "conflicting rule for data path btfgate/config/vendor found") || CodeOf(err) != CodeCompile {
		t.Errorf("err = %v, want a compile error at config.rego:3 naming btfgate/config/vendor", err)
	}
	newEngine(t, Config{Modules: []Module{mod}})
}
