package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInputsThatAreNotFiles: a FIFO or a device named as any input (the
// object, a rules file, a policy, a base, a diff argument) is an error
// naming it at once; nothing blocks in open or reads without end.
func TestInputsThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	polDir := filepath.Join(dir, "policies")
	if err := syscall.Mkdir(polDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(polDir, "x.rego"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.btf")
	for _, c := range []struct {
		args []string
		name string
	}{
		{[]string{"encode", "-o", out, fifo}, fifo},
		{[]string{"encode", "--rules", fifo, "-o", out, fixture}, fifo},
		{[]string{"encode", "--rules", "/dev/zero", "-o", out, fixture}, "/dev/zero"},
		{[]string{"encode", "--policy", fifo, "-o", out, fixture}, fifo},
		{[]string{"encode", "--policy", "/dev/zero", "-o", out, fixture}, "/dev/zero"},
		{[]string{"encode", "--policy", polDir, "-o", out, fixture}, "x.rego"},
		{[]string{"encode", "--btf_base", fifo, "-o", out, fixture}, fifo},
		{[]string{"diff", fifo, fixture}, fifo},
		{[]string{"policy", "test", polDir}, "x.rego"},
	} {
		done := make(chan error, 1)
		go func() { _, _, err := run(t, c.args...); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.name) {
				t.Errorf("%v: error %v, want %s named", c.args, err, c.name)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%v: still running after a minute (blocked on the FIFO?)", c.args)
		}
	}
}
