package engine

import (
	"context"
	"testing"
)

// TestLintUserModules: a module in the wrong package is found, with
// module and line (issue 18, "Why" 1: it did nothing, exit 0); a library
// package another module imports and the default set give no warning.
func TestLintUserModules(t *testing.T) {
	wrong := "package btfgate.function\n\nexclude.lost := {}\n"
	lib := "package btfgate.mylib\n\nbad_names := {\"q\"}\n"
	user := "package btfgate.functions\n\nimport data.btfgate.mylib\n\nexclude.lib := {id: {\"l\"} | some id, f in input.functions; f.name in mylib.bad_names}\n"
	e, err := New(context.Background(), Config{Modules: []Module{{Name: "wrong.rego", Source: wrong},
		{Name: "lib.rego", Source: lib}, {Name: "user.rego", Source: user}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "wrong.rego:1: package btfgate.function defines no rule (skip, exclude, keep, annotate, deny or true_signature of package btfgate.functions) and no module reads it: it does nothing"
	if got := e.Lint(); len(got) != 1 || got[0] != want {
		t.Errorf("lint %q, want [%q]", got, want)
	}
	def, err := New(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Lint()) != 0 {
		t.Errorf("the default set: %q", def.Lint())
	}
}
