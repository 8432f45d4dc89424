package elffile

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompressedBuiltNow compiles testdata/tiny.c with gcc three ways
// (plain, -gz=zlib, and plain recompressed by objcopy to zstd) and checks
// that the compressed objects' debug sections equal the plain one's.
// (-gno-record-gcc-switches keeps -gz out of DW_AT_producer.)
func TestCompressedBuiltNow(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not in PATH")
	}
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/tiny.c")
	build := func(out string, args ...string) bool {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Logf("%s: %v: %s", strings.Join(args, " "), err, b)
			return false
		}
		return true
	}
	plain := filepath.Join(dir, "plain.o")
	if !build(plain, gcc, "-c", "-g", "-O2", "-gno-record-gcc-switches", src, "-o", plain) {
		t.Fatal("gcc cannot compile tiny.c")
	}
	zlib := filepath.Join(dir, "zlib.o")
	if build(zlib, gcc, "-c", "-g", "-O2", "-gno-record-gcc-switches", "-gz=zlib", src, "-o", zlib) {
		t.Run("gcc -gz=zlib", func(t *testing.T) { compareCompressed(t, zlib, plain) })
	} else {
		t.Log("skipping zlib: gcc -gz=zlib unsupported here")
	}
	zstd := filepath.Join(dir, "zstd.o")
	if objcopy, err := exec.LookPath("objcopy"); err == nil && build(zstd, objcopy, "--compress-debug-sections=zstd", plain, zstd) {
		t.Run("objcopy zstd", func(t *testing.T) { compareCompressed(t, zstd, plain) })
	} else {
		t.Log("skipping zstd: objcopy missing or without zstd support")
	}
}
