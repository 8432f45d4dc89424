package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

func TestReporterLines(t *testing.T) {
	var buf bytes.Buffer
	r := &reporter{w: &buf}
	r.checkf("btf-vmlinux", nil, "%d types", 12)
	r.check("module-load:crc8", errors.New("finit_module /m/crc8.ko:\ninvalid argument"))
	r.done()
	want := "E2E check btf-vmlinux pass 12 types\n" +
		"E2E check module-load:crc8 fail finit_module /m/crc8.ko: invalid argument\n" +
		"E2E done 1/2\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	good := `{"vmlinux_btf_sha256":"ab","fentry":"f","fexit_module":"binfmt_misc","fexit":"g","triggers":3,
		"modules":[{"path":"/m/a.ko","name":"a","btf_sha256":"cd"}]}`
	for _, tc := range []struct {
		name, text, err string
	}{
		{"good", good, ""},
		{"no-sha", `{"fentry":"f","fexit_module":"m","fexit":"g","triggers":1}`, "vmlinux_btf_sha256 missing"},
		{"no-triggers", `{"vmlinux_btf_sha256":"ab","fentry":"f","fexit_module":"m","fexit":"g"}`, "triggers must be positive"},
		{"module", `{"vmlinux_btf_sha256":"ab","fentry":"f","fexit_module":"m","fexit":"g","triggers":1,"modules":[{"path":"/a.ko"}]}`, "module 0"},
		{"syntax", `{`, "unexpected end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := loadConfig(p)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.Modules[0].Name != "a" || c.Triggers != 3 {
					t.Errorf("config %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %v, want one naming %s and saying %q", err, p, tc.err)
			}
		})
	}
}

func TestHasSymbol(t *testing.T) {
	syms := "ffffffff81000000 T _text\nffffffff81001000 t bm_status_read\t[binfmt_misc]\nffffffff82000000 D jiffies\n"
	for fn, want := range map[string]bool{"bm_status_read": true, "_text": true, "jiffies": false, "bm_status": false} {
		if got := hasSymbol(syms, fn); got != want {
			t.Errorf("hasSymbol(%s) = %v, want %v", fn, got, want)
		}
	}
}

func TestFtraceNote(t *testing.T) {
	p := filepath.Join(t.TempDir(), "available_filter_functions")
	if err := os.WriteFile(p, []byte("bm_status_read [binfmt_misc]\n__task_pid_nr_ns\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for fn, want := range map[string]string{
		"bm_status_read": "ftrace can trace 2 functions, bm_status_read among them",
		"bm_status":      "ftrace can trace 2 functions, bm_status not among them",
	} {
		if got := ftraceNote(p, fn); got != want {
			t.Errorf("ftraceNote(%s) = %q, want %q", fn, got, want)
		}
	}
	if got := ftraceNote(p+".missing", "f"); !strings.Contains(got, "no such file") {
		t.Errorf("a missing list: %q", got)
	}
	if err := withFtrace(nil, "f"); err != nil {
		t.Errorf("withFtrace(nil) = %v", err)
	}
}

// hostBTF is the running kernel's BTF, which the tests below use as a real
// input; they skip without it.
func hostBTF(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Skipf("the host kernel's BTF is needed: %v", err)
	}
	return raw
}

func TestLoadKernelBTF(t *testing.T) {
	raw := hostBTF(t)
	sum := sha256.Sum256(raw)
	spec, n, err := loadKernelBTF("/sys/kernel/btf/vmlinux", hex.EncodeToString(sum[:]), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Errorf("%d types decoded from the kernel's BTF", n)
	}
	if err := hasFunc(spec, "schedule"); err != nil {
		t.Error(err)
	}
	if err := hasFunc(spec, "task_struct"); err == nil {
		t.Error("hasFunc found a FUNC task_struct (a STRUCT)")
	}
	_, _, err = loadKernelBTF("/sys/kernel/btf/vmlinux", strings.Repeat("0", 64), nil)
	if err == nil || !strings.Contains(err.Error(), "want the .BTF section built") {
		t.Errorf("a wrong hash: error %v", err)
	}

	// Split BTF: a file of the base's header alone is refused as split BTF
	// on a base it does not follow (its string section is not the base's).
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, raw[:40], 0o644); err != nil {
		t.Fatal(err)
	}
	sum = sha256.Sum256(raw[:40])
	if _, _, err := loadKernelBTF(bad, hex.EncodeToString(sum[:]), spec); err == nil {
		t.Error("a truncated BTF decoded")
	}
}

// bpfCounters skips unless the host lets this test load BPF programs
// (root with BPF and BTF).
func bpfCounters(t *testing.T) *counters {
	t.Helper()
	hostBTF(t)
	if os.Geteuid() != 0 {
		t.Skip("loading BPF programs needs root")
	}
	c, err := newCounters(slots)
	if err != nil {
		t.Skipf("the host does not let BPF maps be created: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	l, err := c.attach(ebpf.AttachTraceFEntry, hostTraced, slotFentry)
	if errors.Is(err, ebpf.ErrNotSupported) {
		t.Skipf("the host kernel has no fentry: %v", err)
	}
	if errors.Is(err, os.ErrPermission) {
		t.Skipf("the host does not let this test load tracing programs: %v", err)
	}
	if err != nil {
		t.Fatalf("attach to the host kernel's %s: %v", hostTraced, err)
	}
	l.Close()
	return c
}

// hostTraced is a function of the host kernel that getpid calls.
const hostTraced = "__task_pid_nr_ns"

func TestCountCallsOnHost(t *testing.T) {
	c := bpfCounters(t)
	fn := hostTraced
	for _, at := range []ebpf.AttachType{ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit} {
		got, err := c.countCalls(at, fn, slotFentry, 5, getpid)
		if err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		if got < 5 {
			t.Errorf("%s %s: %d calls counted for 5 getpid", at, fn, got)
		}
	}
	if _, err := c.countCalls(ebpf.AttachTraceFEntry, "btfgate_no_such_function", slotFentry, 1, getpid); !errors.Is(err, ebpf.ErrNotSupported) {
		t.Errorf("attach to a function not in BTF: %v, want ebpf.ErrNotSupported", err)
	}
}

func TestExcludedOnHost(t *testing.T) {
	c := bpfCounters(t)
	base, err := btf.LoadKernelSpec()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := os.ReadFile("/proc/kallsyms")
	if err != nil {
		t.Skip(err)
	}
	// A clone (name.isra.0, name.constprop.0) is a kernel function whose
	// name is never a FUNC in BTF.
	clone := ""
	for _, line := range strings.Split(string(syms), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (f[1] == "t" || f[1] == "T") && !strings.HasPrefix(f[2], "__pfx_") && (strings.Contains(f[2], ".isra.") || strings.Contains(f[2], ".constprop.")) {
			clone = f[2]
			break
		}
	}
	if clone == "" || strings.HasPrefix(string(syms), "0000000000000000") {
		t.Skip("/proc/kallsyms shows no clone, or no addresses")
	}
	if err := excluded(c, base, clone); err != nil {
		t.Errorf("excluded(%s): %v", clone, err)
	}
	if err := excluded(c, base, hostTraced); err == nil || !strings.Contains(err.Error(), "is in vmlinux's BTF") {
		t.Errorf("excluded(%s), a function in BTF: %v", hostTraced, err)
	}
	if err := excluded(c, base, "btfgate_no_such_function"); err == nil || !strings.Contains(err.Error(), "kallsyms") {
		t.Errorf("excluded(a function not in kallsyms): %v", err)
	}
}
