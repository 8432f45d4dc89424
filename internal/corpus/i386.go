package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The i386 kernel: Debian's linux-image-6.1.0-57-686-pae-dbg, unpacked by
// scripts/i386-kernel.sh (or by hand, dpkg-deb -x) into I386Dir. It is not
// part of the shared corpus (it is large); the reference pahole's
// output for it is made on demand by I386Reference and kept beside it.
const (
	// I386Release is the kernel's release (uname -r).
	I386Release = "6.1.0-57-686-pae"
	// I386Package is the Debian package holding its debug files.
	I386Package = "linux-image-" + I386Release + "-dbg"
	// i386How is how to get the package, for skip messages.
	i386How = "run scripts/i386-kernel.sh (as root: it adds the i386 architecture, downloads " +
		I386Package + ":i386 and unpacks it into ~/.cache/btfgate/686-pae, or BTFGATE_I386)"
)

// I386Dir is where the package is unpacked: BTFGATE_I386, else
// btfgate/686-pae in the user cache dir.
func I386Dir() (string, error) {
	if d := os.Getenv("BTFGATE_I386"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "btfgate", "686-pae"), nil
}

// I386VmlinuxPath returns the path of the i386 kernel's vmlinux.
func I386VmlinuxPath() (string, error) {
	d, err := I386Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, "usr", "lib", "debug", "boot", "vmlinux-"+I386Release)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// I386ModulePath returns the path of a module of the i386 kernel, REL
// under its modules directory (e.g. "kernel/fs/ext4/ext4.ko").
func I386ModulePath(rel string) (string, error) {
	d, err := I386Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, "usr", "lib", "debug", "lib", "modules", I386Release, rel)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// I386Vmlinux is I386VmlinuxPath for tests: it skips the test, saying how
// to get the kernel, when it is absent.
func I386Vmlinux(tb testing.TB) string {
	tb.Helper()
	p, err := I386VmlinuxPath()
	if err != nil {
		tb.Skipf("i386 kernel unavailable (%v): %s", err, i386How)
	}
	return p
}

// I386Module is I386ModulePath for tests.
func I386Module(tb testing.TB, rel string) string {
	tb.Helper()
	p, err := I386ModulePath(rel)
	if err != nil {
		tb.Skipf("i386 kernel module %s unavailable (%v): %s", rel, err, i386How)
	}
	return p
}

// PaholePath returns the reference pahole 1.31 of the shared folder.
func PaholePath() (string, error) {
	d, err := SharedDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, "tools", "pahole-1.31", "pahole")
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// I386Reference returns the file NAME of the reference pahole's output for
// INPUT (the i386 kernel or one of its modules), which
//
//	pahole -V -j2 ARGS... --btf_encode_detached=NAME.btf INPUT
//
// writes (NAME.btf) and prints (the skip lines, NAME.skips.log), made on
// first use into the reference/ folder of I386Dir and made again when
// INPUT, pahole, ARGS or the base BTF of a --btf_base=FILE argument
// change. ext is ".btf" or ".skips.log". It skips
// the test when the reference pahole is absent and fails it when pahole
// fails.
func I386Reference(tb testing.TB, input, name, ext string, args ...string) string {
	tb.Helper()
	pahole, err := PaholePath()
	if err != nil {
		tb.Skipf("the reference pahole 1.31 is unavailable: %v", err)
	}
	d, err := I386Dir()
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(d, "reference")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	base := filepath.Join(dir, name)
	stamp, err := referenceStamp(input, pahole, args)
	if err != nil {
		tb.Fatal(err)
	}
	if b, err := os.ReadFile(base + ".stamp"); err == nil && string(b) == stamp {
		return base + ext
	}
	if err := runReference(pahole, input, base, args); err != nil {
		tb.Fatalf("reference pahole for %s: %v", input, err)
	}
	if err := os.WriteFile(base+".stamp", []byte(stamp), 0o644); err != nil {
		tb.Fatal(err)
	}
	return base + ext
}

// referenceStamp identifies a reference run: its input, its pahole, its
// arguments and the base BTF an argument names.
func referenceStamp(input, pahole string, args []string) (string, error) {
	var b strings.Builder
	files := []string{input, pahole}
	for _, a := range args {
		if base, ok := strings.CutPrefix(a, "--btf_base="); ok {
			files = append(files, base)
		}
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
	}
	b.WriteString(strings.Join(args, " "))
	return b.String(), nil
}

// runReference runs pahole and writes base.btf and base.skips.log, each
// through a temporary file. pahole -V prints hundreds of megabytes for a
// kernel: its output is filtered as it comes.
func runReference(pahole, input, base string, args []string) error {
	tmp := base + ".tmp" + strconv.Itoa(os.Getpid())
	defer os.Remove(tmp)
	defer os.Remove(tmp + ".skips")
	cmd := exec.Command(pahole, append(append([]string{"-V", "-j2"}, args...), "--btf_encode_detached="+tmp, input)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var skips bytes.Buffer
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		if line := sc.Bytes(); bytes.Contains(line, []byte(" : skipping BTF encoding of function due to ")) {
			skips.Write(line)
			skips.WriteByte('\n')
		}
	}
	scanErr := sc.Err()
	if scanErr != nil {
		_, _ = io.Copy(io.Discard, out) // only draining, so that pahole can exit
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	if scanErr != nil {
		return fmt.Errorf("reading the output of %s: %w", strings.Join(cmd.Args, " "), scanErr)
	}
	if st, err := os.Stat(tmp); err != nil || st.Size() == 0 {
		return fmt.Errorf("%s wrote no BTF:\n%s", strings.Join(cmd.Args, " "), stderr.String())
	}
	if err := os.WriteFile(tmp+".skips", skips.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp+".skips", base+".skips.log"); err != nil {
		return err
	}
	return os.Rename(tmp, base+".btf")
}
