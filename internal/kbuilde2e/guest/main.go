// Command guest is the /init of the initramfs that scripts/kbuild-e2e.sh
// boots a freshly built kernel with, under qemu. It checks that the BTF
// btfgate wrote into the kernel and its modules is the BTF the kernel
// uses, and that BPF programs attach by it:
//
//   - mount: devtmpfs on /dev (for /dev/console), proc, sysfs, debugfs,
//     tracefs;
//   - btf-vmlinux: /sys/kernel/btf/vmlinux exists, holds exactly the .BTF
//     section the host read from vmlinux (SHA-256), and every type decodes;
//   - module-load:NAME: finit_module of each module (the kernel validates
//     the module's BTF against vmlinux's and refuses a module whose BTF is
//     bad);
//   - btf-module:NAME: /sys/kernel/btf/NAME exists, holds exactly the
//     module's .BTF section, and decodes as split BTF on vmlinux's;
//   - fentry:FUNC: a counting fentry program attaches to a vmlinux function
//     by its BTF and counts at least the getpid calls made to trigger it;
//   - fexit:MODULE:FUNC: a counting fexit program attaches to a function of
//     a module (by the module's BTF) and counts at least the reads of
//     binfmt_misc's status file made to trigger it (a failed attach says
//     what ftrace can trace);
//   - excluded:FUNC (when the configuration names one): the function is in
//     /proc/kallsyms, and attaching fentry to it fails because it is not in
//     BTF (a rules file left it out).
//
// It reads what to check from /e2e.json (written by the script) and writes
// one line per check to the console, "E2E check NAME pass|fail DETAIL",
// then "E2E done PASSED/TOTAL", and reboots (qemu runs with -no-reboot, so
// it exits). The counting programs are written with cilium/ebpf's asm:
// look up an array map value, add one.
package main

import (
	"fmt"
	"os"
	"syscall"
)

// configPath is where the script puts the configuration in the initramfs.
const configPath = "/e2e.json"

func main() {
	console := openConsole()
	r := &reporter{w: console}
	defer finish(r)

	cfg, err := loadConfig(configPath)
	if err != nil {
		r.check("config", err)
		return
	}
	run(r, cfg)
}

// finish prints the summary, syncs and reboots: the guest is PID 1, whose
// return would panic the kernel.
func finish(r *reporter) {
	if v := recover(); v != nil {
		r.check("guest", fmt.Errorf("panic: %v", v))
	}
	r.done()
	syscall.Sync()
	if err := syscall.Reboot(syscall.LINUX_REBOOT_CMD_RESTART); err != nil {
		fmt.Fprintf(r.w, "E2E reboot failed: %v\n", err)
	}
	select {}
}

// openConsole mounts devtmpfs on /dev and makes /dev/console the standard
// output and error. The initramfs has no device nodes (it is built without
// root), so the kernel could not open a console for init itself.
func openConsole() *os.File {
	_ = os.MkdirAll("/dev", 0o755)
	mountErr := syscall.Mount("devtmpfs", "/dev", "devtmpfs", 0, "")
	f, err := os.OpenFile("/dev/console", os.O_WRONLY, 0)
	if err != nil {
		// Nothing to report on; the host sees no "E2E done" line.
		return os.Stdout
	}
	_ = syscall.Dup2(int(f.Fd()), 1)
	_ = syscall.Dup2(int(f.Fd()), 2)
	if mountErr != nil && mountErr != syscall.EBUSY {
		fmt.Fprintf(f, "E2E note: mount devtmpfs: %v\n", mountErr)
	}
	return f
}
