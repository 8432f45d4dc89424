package main

import (
	"strings"
	"testing"
)

// TestHelpConventions: every command's help has an Examples section and
// shows bool flags plainly (issue 18, "Why" 4: "--json[=true|false]", no
// examples), and "--json" alone still sets the flag.
func TestHelpConventions(t *testing.T) {
	for _, c := range [][]string{{"encode"}, {"facts"}, {"explain"}, {"diff"}, {"features"}, {"policy"}, {"policy", "test"}, {"pahole"}, {"version"}} {
		out, _, err := run(t, append(c, "--help")...)
		if err != nil {
			t.Errorf("%s --help: %v", c, err)
			continue
		}
		if !strings.Contains(out, "Examples:\n  btfgate ") {
			t.Errorf("%s --help has no examples:\n%s", c, out)
		}
		if strings.Contains(out, "[=true|false]") {
			t.Errorf("%s --help shows a bool flag with [=true|false]:\n%s", c, out)
		}
	}
	out, _, _ := run(t, "explain", "--help")
	if !strings.Contains(out, "      --json ") {
		t.Errorf("explain --help does not show --json plainly:\n%s", out)
	}
	if _, _, err := run(t, "features", "--help=false"); err != nil {
		t.Errorf("--help=false: %v", err)
	}
	js, _, err := run(t, "explain", "--json", fixture, "fn_driver")
	if err != nil || !strings.HasPrefix(js, `{"query":"fn_driver","id":`) {
		t.Errorf("explain --json: %v\n%s", err, js)
	}
}

// TestArgumentErrorsInWords: a missing or extra argument is said in
// words with the usage line, not cobra's "accepts 1 arg(s), received 0".
func TestArgumentErrorsInWords(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"facts"}, "facts needs an INPUT: vmlinux, a kernel module or an object file with DWARF\nusage: btfgate facts [flags] INPUT"},
		{[]string{"encode", "-o", "x.btf"}, "encode needs an INPUT"},
		{[]string{"encode", "-o", "x.btf", "a", "b"}, "encode takes one INPUT, got 2 arguments (a b)"},
		{[]string{"explain", "vmlinux"}, "explain needs an INPUT (vmlinux, a module, an object) and at least one function NAME"},
		{[]string{"version", "x"}, "version takes no arguments, got x"},
	} {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "arg(s)") {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
}
