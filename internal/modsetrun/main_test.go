package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRecordsEachModule runs a shell as the encoder on four "modules"
// whose names say what it does, and checks each result line: the exit
// code (with -1 for exit 0 without output and -2 for a signal), a wall
// time at least the CPU the process spent sleeping does not count, a peak
// RSS, and stderr kept only when written.
func TestRunRecordsEachModule(t *testing.T) {
	res, out := t.TempDir(), t.TempDir()
	list := "00000 writes\n00001 silent\n00002 fails\n00003 killed\n"
	script := `case $1 in
writes) sleep 0.05; echo btf >"$2" ;;
silent) : ;;
fails) echo "bad input" >&2; exit 3 ;;
killed) kill -9 $$ ;;
esac`
	err := run([]string{"-P", "2", "-res", res, "-out", out, "--", "/bin/sh", "-c", script, "sh", "{in}", "{out}"}, strings.NewReader(list))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"00000": "0", "00001": "-1", "00002": "3", "00003": "-2"}
	for idx, code := range want {
		b, err := os.ReadFile(filepath.Join(res, idx))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		if len(f) != 4 || f[0] != code {
			t.Errorf("%s: result %q, want exit %s and 3 more fields", idx, b, code)
			continue
		}
		if f[3] == "0" {
			t.Errorf("%s: no peak RSS in %q", idx, b)
		}
		_, errFile := os.Stat(filepath.Join(res, idx+".err"))
		if (idx == "00002") != (errFile == nil) {
			t.Errorf("%s: stderr file present: %v", idx, errFile == nil)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(res, "00000")); !strings.HasPrefix(string(b), "0 0.0") || strings.HasPrefix(string(b), "0 0.00") {
		t.Errorf("writes: wall of a 50 ms sleep not in [0.01, 0.1) s: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "00000.btf")); string(b) != "btf\n" {
		t.Errorf("{out} was not OUT/IDX.btf: %q", b)
	}
}

// TestRunRefusesBadLists: a line without a path, or an index that could
// name a file elsewhere, is an error naming the line.
func TestRunRefusesBadLists(t *testing.T) {
	for _, list := range []string{"00000\n", "../x /a.ko\n", "00000 /a.ko\n\n"} {
		err := run([]string{"-res", t.TempDir(), "-out", t.TempDir(), "--", "true"}, strings.NewReader(list))
		if err == nil || !strings.Contains(err.Error(), "list line") {
			t.Errorf("list %q: error %v, want one naming the line", list, err)
		}
	}
}

// TestRunPassesMakeflags: each process sees MAKEFLAGS as make -jP gives
// it to a recipe, whatever the caller's environment held.
func TestRunPassesMakeflags(t *testing.T) {
	t.Setenv("MAKEFLAGS", "-j64")
	res, out := t.TempDir(), t.TempDir()
	err := run([]string{"-P", "3", "-res", res, "-out", out, "--", "/bin/sh", "-c", `printf '%s' "$MAKEFLAGS" >"$1"`, "sh", "{out}"},
		strings.NewReader("00000 m.ko\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "00000.btf")); string(b) != " -j3" {
		t.Errorf("MAKEFLAGS = %q, want %q", b, " -j3")
	}
}
