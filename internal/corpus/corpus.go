// Package corpus locates the shared test corpus (a real Debian kernel, its
// modules and pahole's reference output) for tests and benchmarks.
//
// The corpus lives in ../shared beside the repository (or wherever
// BTFGATE_SHARED points). Its ELF files are stored zstd-compressed; this
// package unpacks each one once into a cache directory (BTFGATE_CACHE, else
// the user cache dir) and hands out the path of the unpacked copy. When the
// corpus is missing, tests are skipped with a message saying why.
package corpus

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// VmlinuxName is the corpus kernel's file name inside corpus/, without .zst.
const VmlinuxName = "vmlinux-6.1.0-57-amd64.norela"

// Modules lists the kernel modules stored in corpus/modules/.
func Modules() []string { return []string{"virtio_net", "tcp_bbr", "nf_conntrack", "ext4"} }

// SharedDir returns the shared directory, or an error saying where it looked.
func SharedDir() (string, error) {
	if d := os.Getenv("BTFGATE_SHARED"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "corpus")); err != nil {
			return "", fmt.Errorf("BTFGATE_SHARED=%s has no corpus/: %w", d, err)
		}
		return d, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	d := filepath.Join(filepath.Dir(root), "shared")
	if _, err := os.Stat(filepath.Join(d, "corpus")); err != nil {
		return "", fmt.Errorf("no shared corpus at %s (set BTFGATE_SHARED to override)", d)
	}
	return d, nil
}

// repoRoot walks up from the working directory to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Reference returns the path of a file under shared/reference/pahole-1.31/.
func Reference(rel string) (string, error) {
	d, err := SharedDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, "reference", "pahole-1.31", rel)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// VmlinuxPath returns the path of the unpacked corpus kernel.
func VmlinuxPath() (string, error) {
	return unpacked(filepath.Join("corpus", VmlinuxName+".zst"))
}

// ModulePath returns the path of the unpacked module NAME (e.g. "ext4").
func ModulePath(name string) (string, error) {
	return unpacked(filepath.Join("corpus", "modules", name+".ko.zst"))
}

// Vmlinux is VmlinuxPath for tests: it skips the test when the corpus is absent.
func Vmlinux(tb testing.TB) string {
	tb.Helper()
	p, err := VmlinuxPath()
	if err != nil {
		tb.Skipf("corpus kernel unavailable: %v", err)
	}
	return p
}

// Module is ModulePath for tests: it skips the test when the corpus is absent.
func Module(tb testing.TB, name string) string {
	tb.Helper()
	p, err := ModulePath(name)
	if err != nil {
		tb.Skipf("corpus module %s unavailable: %v", name, err)
	}
	return p
}

// ReferenceFile is Reference for tests: it skips when the reference is absent.
func ReferenceFile(tb testing.TB, rel string) string {
	tb.Helper()
	p, err := Reference(rel)
	if err != nil {
		tb.Skipf("reference %s unavailable: %v", rel, err)
	}
	return p
}

func cacheDir() (string, error) {
	if d := os.Getenv("BTFGATE_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "btfgate", "corpus"), nil
}

// unpacked decompresses shared/REL (a .zst file) into the cache once and
// returns the cached path. A stamp file records the source size and mtime so
// that a changed corpus is unpacked again.
func unpacked(rel string) (string, error) {
	shared, err := SharedDir()
	if err != nil {
		return "", err
	}
	src := filepath.Join(shared, rel)
	st, err := os.Stat(src)
	if err != nil {
		return "", err
	}
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	base := filepath.Base(rel)
	dst := filepath.Join(dir, base[:len(base)-len(".zst")])
	stamp := strconv.FormatInt(st.Size(), 10) + " " + strconv.FormatInt(st.ModTime().UnixNano(), 10)
	if b, err := os.ReadFile(dst + ".stamp"); err == nil && string(b) == stamp {
		if _, err := os.Stat(dst); err == nil {
			return dst, nil
		}
	}
	if err := decompress(src, dst); err != nil {
		return "", fmt.Errorf("unpack %s: %w", src, err)
	}
	if err := os.WriteFile(dst+".stamp", []byte(stamp), 0o644); err != nil {
		return "", err
	}
	return dst, nil
}

func decompress(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	dec, err := zstd.NewReader(in)
	if err != nil {
		return err
	}
	defer dec.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := io.Copy(tmp, dec); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// ReferencePahole returns the path of the reference pahole 1.31 in
// shared/tools/pahole-1.31/, the oracle for differential tests. It skips
// the test when the tool is absent or cannot run (it needs Debian's libdw1
// and libelf1).
func ReferencePahole(tb testing.TB) string {
	tb.Helper()
	d, err := SharedDir()
	if err != nil {
		tb.Skipf("reference pahole unavailable: %v", err)
	}
	p := filepath.Join(d, "tools", "pahole-1.31", "pahole")
	if out, err := exec.Command(p, "--version").Output(); err != nil || string(out) != "v1.31\n" {
		tb.Skipf("reference pahole %s cannot run (%v, %q): apt-get install libdw1 libelf1", p, err, out)
	}
	return p
}
