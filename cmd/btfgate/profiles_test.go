package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileFlagErrors: a profile that cannot be written is an error
// naming its flag, after the profiles started before it are stopped and
// with no BTF written; the profiles that can be written are.
func TestProfileFlagErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.btf")
	cpu := filepath.Join(dir, "cpu.prof")
	missing := filepath.Join(dir, "no", "such", "dir")
	for _, c := range []struct{ flag, want string }{
		{"--memprofile", "--memprofile " + missing},
		{"--trace", "--trace " + missing},
		{"--cpuprofile", "--cpuprofile " + missing},
	} {
		args := []string{"encode", "-o", out, fixture, c.flag, filepath.Join(missing, "x")}
		if c.flag != "--cpuprofile" {
			args = append(args, "--cpuprofile", cpu)
		}
		_, _, err := run(t, args...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s in a missing directory: error %v, want one starting %q", c.flag, err, c.want)
		}
		for _, p := range []string{out, cpu} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s in a missing directory: %s written", c.flag, p)
			}
		}
	}

	mem, tr := filepath.Join(dir, "mem.prof"), filepath.Join(dir, "run.trace")
	if _, _, err := run(t, "encode", "--summary=none", "-o", out, fixture, "--cpuprofile", cpu, "--memprofile", mem, "--trace", tr); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cpu, mem, tr, out} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (want a non-empty file)", p, err)
		}
	}
}
