package engine

import (
	"context"
	"strings"
	"testing"
)

// TestLintUserModules: a fact typo and a module in the wrong package are
// found, with module and line (issue 18, "Why" 1: they did nothing, exit
// 0); correct modules and the default set give no warning.
func TestLintUserModules(t *testing.T) {
	typo := `package btfgate.functions

exclude.typo := {id: {"x"} |
	some id, f in input.functions
	f.nmae == "a"
}

exclude.indexed := {id: {"y"} |
	some id, _ in input.functions
	input.functions[id].sectoin == ".init.text"
}

exclude.fine := {id: {"z"} |
	some id, f in input.functions
	f.name == "b"
	input.functions[id].canonical.params[_].name == "p"
}
`
	wrong := "package btfgate.function\n\nexclude.lost := {}\n"
	lib := "package btfgate.mylib\n\nbad_names := {\"q\"}\n"
	user := "package btfgate.functions\n\nimport data.btfgate.mylib\n\nexclude.lib := {id: {\"l\"} | some id, f in input.functions; f.name in mylib.bad_names}\n"
	e, err := New(context.Background(), Config{Modules: []Module{{Name: "typo.rego", Source: typo}, {Name: "wrong.rego", Source: wrong},
		{Name: "lib.rego", Source: lib}, {Name: "user.rego", Source: user}}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(e.Lint(), "\n")
	want := []string{
		`typo.rego:5: no function fact is named "nmae" (did you mean "name"?): it is always undefined`,
		`typo.rego:10: no function fact is named "sectoin" (did you mean "section"?)`,
		`wrong.rego:1: package btfgate.function defines no rule`,
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("lint lacks %q:\n%s", w, got)
		}
	}
	if n := len(e.Lint()); n != len(want) {
		t.Errorf("%d warnings, want %d:\n%s", n, len(want), got)
	}
	def, err := New(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Lint()) != 0 {
		t.Errorf("the default set: %q", def.Lint())
	}
}
