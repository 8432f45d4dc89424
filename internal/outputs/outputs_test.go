package outputs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, path, data string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRefusesInputsByIdentity(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.o")
	write(t, in, "input", 0o644)
	if err := os.Symlink("x.o", filepath.Join(dir, "link.o")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, filepath.Join(dir, "hard.o")); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, filepath.Join(dir, "link.o"), filepath.Join(dir, "hard.o"), dir + "/./x.o"} {
		s := New(in)
		err := s.Add("-o", out)
		if err == nil || !strings.Contains(err.Error(), "refusing to overwrite an input") {
			t.Errorf("Add(%s) = %v, want a refusal naming the input", out, err)
		}
	}
	if got := read(t, in); got != "input" {
		t.Errorf("input changed: %q", got)
	}
}

func TestRefusesTwiceTheSameOutputAndMissingDirs(t *testing.T) {
	dir := t.TempDir()
	s := New()
	a := filepath.Join(dir, "a")
	if err := s.Add("-o", a); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("--report", a); err == nil || !strings.Contains(err.Error(), "also the output") {
		t.Errorf("second Add of a new path = %v", err)
	}
	if err := s.Add("-o", filepath.Join(dir, "missing", "o.btf")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Add in a missing directory = %v", err)
	}
	if err := s.Add("-o", dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Add of a directory = %v", err)
	}
}

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	write(t, b, "old", 0o600)
	s := New()
	for _, p := range []string{a, b} {
		if err := s.Add("", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Write(a, []byte("A"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(b, []byte("B"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); err == nil {
		t.Error("a exists before Commit")
	}
	if got := read(t, b); got != "old" {
		t.Errorf("b = %q before Commit", got)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "A" || read(t, b) != "B" {
		t.Error("outputs not committed")
	}
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}

	s = New()
	c := filepath.Join(dir, "c")
	if err := s.Add("", c); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(c, []byte("C"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Abort()
	if _, err := os.Stat(c); err == nil {
		t.Error("c exists after Abort")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("staged files left behind: %v", left)
	}
}

func TestInPlaceFollowsSymlinkKeepsHardLinksAndMode(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.ko")
	write(t, target, "old contents", 0o751)
	link := filepath.Join(dir, "link.ko")
	if err := os.Symlink("real.ko", link); err != nil {
		t.Fatal(err)
	}
	s := New(link)
	if err := s.AddInPlace(link); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(link, []byte("new"), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file: %v %v", fi.Mode(), err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target = %q", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode %v, want 0751 kept", fi.Mode().Perm())
	}

	hard := filepath.Join(dir, "hard.ko")
	if err := os.Link(target, hard); err != nil {
		t.Fatal(err)
	}
	s = New(target)
	if err := s.AddInPlace(target); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(target, []byte("newer"), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if read(t, hard) != "newer" || read(t, target) != "newer" {
		t.Errorf("hard link broken: %q / %q", read(t, hard), read(t, target))
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("staged files left behind: %v", left)
	}
}

func TestInPlaceRefusesWhatPaholeCannotOpen(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := New(fifo).AddInPlace(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("AddInPlace(fifo) = %v", err)
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: a 0444 file can be opened for writing, as pahole would")
		return
	}
	ro := filepath.Join(dir, "ro.o")
	write(t, ro, "x", 0o444)
	if err := New(ro).AddInPlace(ro); err == nil {
		t.Error("AddInPlace of a 0444 file succeeded")
	}
}
