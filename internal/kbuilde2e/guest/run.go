package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// binfmtDir is where the guest mounts binfmt_misc.
const binfmtDir = "/binfmt_misc"

// Counter slots.
const (
	slotFentry = iota
	slotFexit
	slotExcluded
	slots
)

// run makes every check of the package comment, in order; a check whose
// prerequisite failed is reported as failed too, so the total stays the
// same.
func run(r *reporter, cfg *config) {
	r.check("mount", mountAll())

	base, n, err := loadKernelBTF("/sys/kernel/btf/vmlinux", cfg.VmlinuxBTFSHA256, nil)
	r.checkf("btf-vmlinux", err, "%d types", n)

	failed := loadModules(cfg.Modules)
	for _, m := range cfg.Modules {
		r.check("module-load:"+m.Name, failed[m.Name])
	}
	for _, m := range cfg.Modules {
		name := "btf-module:" + m.Name
		if base == nil {
			r.check(name, errors.New("no vmlinux BTF"))
			continue
		}
		_, n, err := loadKernelBTF("/sys/kernel/btf/"+m.Name, m.BTFSHA256, base)
		r.checkf(name, err, "%d types on vmlinux's", n)
	}

	c, err := newCounters(slots)
	if err != nil {
		r.check("fentry:"+cfg.Fentry, err)
		r.check("fexit:"+cfg.FexitModule+":"+cfg.Fexit, err)
		if cfg.Excluded != "" {
			r.check("excluded:"+cfg.Excluded, err)
		}
		return
	}
	defer c.Close()

	got, err := c.countCalls(ebpf.AttachTraceFEntry, cfg.Fentry, slotFentry, cfg.Triggers, getpid)
	r.checkf("fentry:"+cfg.Fentry, withFtrace(atLeast(got, cfg.Triggers, err), cfg.Fentry), "%d calls counted for %d getpid", got, cfg.Triggers)

	got, err = fexitModule(c, cfg)
	r.checkf("fexit:"+cfg.FexitModule+":"+cfg.Fexit, withFtrace(atLeast(got, cfg.Triggers, err), cfg.Fexit), "%d calls counted for %d reads", got, cfg.Triggers)

	if cfg.Excluded != "" {
		r.checkf("excluded:"+cfg.Excluded, excluded(c, base, cfg.Excluded), "in kallsyms, not in BTF: attach refused")
	}
}

func mountAll() error {
	for _, m := range []struct{ src, dir, fs string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"debugfs", "/sys/kernel/debug", "debugfs"},
		{"tracefs", "/sys/kernel/tracing", "tracefs"},
	} {
		if err := os.MkdirAll(m.dir, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount(m.src, m.dir, m.fs, 0, ""); err != nil {
			return fmt.Errorf("mount %s on %s: %w", m.fs, m.dir, err)
		}
	}
	return nil
}

// withFtrace adds to a failed attach what ftrace says of fn: a kernel
// whose ftrace has no functions cannot attach to module functions (x86
// pokes BPF trampolines into core kernel text only), whatever its BTF.
func withFtrace(err error, fn string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w (%s)", err, ftraceNote(availableFilterFunctions, fn))
}

// availableFilterFunctions lists the functions ftrace can trace.
const availableFilterFunctions = "/sys/kernel/tracing/available_filter_functions"

// ftraceNote says how many functions ftrace can trace (path lists them)
// and whether fn is one of them.
func ftraceNote(path, fn string) string {
	raw, err := os.ReadFile(path)
	if errors.Is(err, syscall.ENODEV) {
		// ftrace_init found no call sites and turned ftrace off.
		return "ftrace is off in this kernel: available_filter_functions says no such device"
	}
	if err != nil {
		return fmt.Sprintf("ftrace: %v", err)
	}
	n, found := 0, false
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			n++
			found = found || f[0] == fn
		}
	}
	in := "not among them"
	if found {
		in = "among them"
	}
	return fmt.Sprintf("ftrace can trace %d functions, %s %s", n, fn, in)
}

func atLeast(got uint64, want int, err error) error {
	if err != nil {
		return err
	}
	if got < uint64(want) {
		return fmt.Errorf("%d calls counted, want at least %d", got, want)
	}
	return nil
}

func getpid() error {
	syscall.Getpid()
	return nil
}

// fexitModule checks that the function is in the module's BTF, mounts
// binfmt_misc and counts the calls reading its status file makes.
func fexitModule(c *counters, cfg *config) (uint64, error) {
	spec, err := btf.LoadKernelModuleSpec(cfg.FexitModule)
	if err != nil {
		return 0, fmt.Errorf("module %s BTF: %w", cfg.FexitModule, err)
	}
	if err := hasFunc(spec, cfg.Fexit); err != nil {
		return 0, fmt.Errorf("module %s: %w", cfg.FexitModule, err)
	}
	if err := os.MkdirAll(binfmtDir, 0o755); err != nil {
		return 0, err
	}
	if err := syscall.Mount("binfmt_misc", binfmtDir, "binfmt_misc", 0, ""); err != nil {
		return 0, fmt.Errorf("mount binfmt_misc: %w", err)
	}
	return c.countCalls(ebpf.AttachTraceFExit, cfg.Fexit, slotFexit, cfg.Triggers, readBinfmtStatus)
}

// readBinfmtStatus makes one read(2) of binfmt_misc's status file.
func readBinfmtStatus() error {
	f, err := os.Open(binfmtDir + "/status")
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64)
	_, err = f.Read(buf)
	return err
}

// excluded checks that fn is a kernel function (in /proc/kallsyms) whose
// FUNC is not in vmlinux's BTF, and that BPF cannot attach to it.
// cilium/ebpf reports a target missing from BTF as ebpf.ErrNotSupported.
func excluded(c *counters, base *btf.Spec, fn string) error {
	syms, err := os.ReadFile("/proc/kallsyms")
	if err != nil {
		return err
	}
	if !hasSymbol(string(syms), fn) {
		return fmt.Errorf("%s is not in /proc/kallsyms: not a test of BTF", fn)
	}
	if base == nil {
		return errors.New("no vmlinux BTF")
	}
	if err := hasFunc(base, fn); err == nil {
		return fmt.Errorf("FUNC %s is in vmlinux's BTF", fn)
	} else if !errors.Is(err, btf.ErrNotFound) {
		return err
	}
	l, err := c.attach(ebpf.AttachTraceFEntry, fn, slotExcluded)
	if err == nil {
		l.Close()
		return fmt.Errorf("fentry attached to %s, which is not in BTF", fn)
	}
	if !errors.Is(err, ebpf.ErrNotSupported) {
		return fmt.Errorf("attach failed, but not for want of BTF: %w", err)
	}
	return nil
}

// hasSymbol reports whether kallsyms (the text of /proc/kallsyms) has a
// text symbol named fn.
func hasSymbol(kallsyms, fn string) bool {
	for _, line := range strings.Split(kallsyms, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[2] == fn && (f[1] == "t" || f[1] == "T") {
			return true
		}
	}
	return false
}
