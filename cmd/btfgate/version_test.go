package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestVersionAndRouting: "btfgate version" names btfgate and the pahole
// it emulates; "btfgate --version" is pahole's answer (kbuild asks it);
// options that are not pahole's go to btfgate's own command line; "btfgate
// pahole --help" prints the front end's help.
func TestVersionAndRouting(t *testing.T) {
	out, _, err := run(t, "version")
	if err != nil || !strings.HasPrefix(out, "btfgate ") || !strings.Contains(out, "emulates pahole v1.31") {
		t.Errorf("version: %q, %v", out, err)
	}
	for args, want := range map[string]bool{"--version": true, "-J": true, "-j8": true, "--btf_gen_floats": true,
		"--btf_features=default": true, "-v": false, "--foo": false, "--help": false, "-h": false, "encode": false} {
		if got := paholeStyle([]string{args}); got != want {
			t.Errorf("paholeStyle(%q) = %v, want %v", args, got, want)
		}
	}
	var stdout bytes.Buffer
	if err := runPahole([]string{"--help"}, &stdout, &bytes.Buffer{}); err != nil || !strings.Contains(stdout.String(), "Usage: btfgate pahole") {
		t.Errorf("pahole --help: %v\n%s", err, stdout.String())
	}
	if _, _, err := run(t, "pahole", "--help"); err != nil {
		t.Errorf("btfgate pahole --help: %v", err)
	}
}
