package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// copyInput puts a copy of fixture in dir and returns its path and bytes.
func copyInput(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "x.o")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// TestOutputsNeverDestroyInputs: every output flag that names the input
// (directly, through a symlink or a hard link) is refused before anything
// is read or written, and the input keeps its bytes.
func TestOutputsNeverDestroyInputs(t *testing.T) {
	dir := t.TempDir()
	in, orig := copyInput(t, dir)
	link := filepath.Join(dir, "link.o")
	hard := filepath.Join(dir, "hard.o")
	if err := os.Symlink("x.o", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.btf")
	for _, args := range [][]string{
		{"encode", "-o", in, in},
		{"encode", "-o", link, in},
		{"encode", "-o", out, "--report", hard, in},
		{"encode", "-o", out, "--cpuprofile", in, in},
		{"encode", "-o", out, "--memprofile", link, in},
		{"encode", "-o", out, "--trace", hard, in},
		{"facts", "-o", in, in},
		{"encode", "-o", out, "--report", out, in},
	} {
		_, _, err := run(t, args...)
		if err == nil || !(strings.Contains(err.Error(), "refusing to overwrite an input") || strings.Contains(err.Error(), "is also the output")) {
			t.Errorf("%v: error %v, want a refusal", args, err)
		}
		if got, _ := os.ReadFile(in); !bytes.Equal(got, orig) {
			t.Fatalf("%v: the input changed", args)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", args, out)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("staged files left behind: %v", left)
	}
}

// TestFailedEncodeLeavesNoOutput: when one output cannot be written, none
// is (the report used to be left behind when -o named a missing directory).
func TestFailedEncodeLeavesNoOutput(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.ndjson")
	_, _, err := run(t, "encode", "--report", report, "-o", filepath.Join(dir, "missing", "o.btf"), fixture)
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("error %v, want the missing directory named", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestElfInPlaceKeepsLinks: encode --elf -o INPUT INPUT rewrites the input
// in place as pahole -J does: through a symlink the target is rewritten
// (the link stays a link) and a hard link sees the new contents.
func TestElfInPlaceKeepsLinks(t *testing.T) {
	dir := t.TempDir()
	in, orig := copyInput(t, dir)
	link := filepath.Join(dir, "link.o")
	hard := filepath.Join(dir, "hard.o")
	if err := os.Symlink("x.o", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "encode", "--summary=none", "--elf", "-o", link, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
	got, _ := os.ReadFile(hard)
	if bytes.Equal(got, orig) || !bytes.Contains(got, []byte(".BTF")) {
		t.Error("the hard link does not see the rewritten file")
	}
	if fi, _ := os.Stat(in); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

// TestPaholeFrontEndOnLLDEmptyBTF: kbuild's vmlinux step on an LLVM=1
// build ("pahole -J" on a file whose .BTF ld.lld left allocated and empty)
// writes .BTF, and its contents are the BTF the reference pahole writes for
// the same file, by content.
func TestPaholeFrontEndOnLLDEmptyBTF(t *testing.T) {
	src := filepath.Join("..", "..", "elfedit", "testdata", "lld-empty-btf.elf")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vmlinux := filepath.Join(dir, ".tmp_vmlinux.btf")
	if err := os.WriteFile(vmlinux, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runPahole([]string{"-J", "--btf_gen_floats", "-j", "--lang_exclude=rust", vmlinux}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatalf("-J on an allocated empty .BTF: %v", err)
	}
	f, err := elf.Open(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".BTF")
	if s == nil || s.Size == 0 {
		t.Fatalf(".BTF after -J: %+v", s)
	}
	got, _ := s.Data()
	gotPath := filepath.Join(dir, "got.btf")
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Fatal(err)
	}
	pahole := corpus.ReferencePahole(t)
	refPath := filepath.Join(dir, "ref.btf")
	if out, err := exec.Command(pahole, "--btf_gen_floats", "--btf_encode_detached="+refPath, src).CombinedOutput(); err != nil {
		t.Fatalf("reference pahole: %v\n%s", err, out)
	}
	out, _, err := run(t, "diff", refPath, gotPath)
	if err != nil || !strings.Contains(out, "\nequal\n") {
		t.Errorf("btfgate's .BTF differs from the reference's: %v\n%s", err, out)
	}
}

// TestOutputsNeverDestroyFoundInputs: the files an input's DWARF continues
// in (a dwz supplement found through .gnu_debugaltlink, a .dwo found
// through its skeleton unit) are inputs too, though no argument names
// them: an output that is one of them is refused and it keeps its bytes.
func TestOutputsNeverDestroyFoundInputs(t *testing.T) {
	fixtures := filepath.Join("..", "..", "testdata", "fixtures")
	for _, c := range []struct {
		dir, input, found string
		args              []string
	}{
		{"dwz", "one-dwz.exe", "common.dwz", []string{"encode", "-o"}},
		{"dwz", "one-dwz.exe", "common.dwz", []string{"facts", "-o"}},
		{"split", "clang_abi.gcc-dwarf5-split.o", "clang_abi.gcc-dwarf5-split.dwo", []string{"encode", "-o"}},
		{"split", "clang_abi.gcc-dwarf5-split.o", "clang_abi.gcc-dwarf5-split.dwo", []string{"pahole", "--btf_encode_detached"}},
	} {
		dir := t.TempDir()
		var found []byte
		for _, name := range []string{c.input, c.found} {
			data, err := os.ReadFile(filepath.Join(fixtures, c.dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			found = data
		}
		in, out := filepath.Join(dir, c.input), filepath.Join(dir, c.found)
		args := append(append([]string{}, c.args...), out, in)
		if c.args[0] == "pahole" {
			args = []string{"pahole", c.args[1] + "=" + out, in}
		}
		_, _, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), "refusing to overwrite an input") {
			t.Errorf("%v: error %v, want a refusal", args, err)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, found) {
			t.Errorf("%v: %s changed", args, c.found)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
			t.Errorf("%v: staged files left behind: %v", args, left)
		}
		// The same input with another output encodes: the refusal is the
		// found input's, not the fixture's.
		if _, _, err := run(t, c.args[0], "-o", filepath.Join(dir, "ok.out"), in); c.args[0] != "pahole" && err != nil {
			t.Errorf("%s %s: %v", c.args[0], c.input, err)
		}
	}
}
