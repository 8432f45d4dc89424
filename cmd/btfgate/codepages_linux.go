//go:build linux

package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseInitCode lets go the pages of the executable's code that the
// process has mapped in so far: at the start of main, those package
// initialisation touched. The packages linked (OPA's above all) run
// initialisers spread over the whole text, and the kernel maps 64 KiB
// around each page faulted in, so most of the 8 MB of code is resident
// before main; the command then faults back in only the code it runs. A
// module's encode is about 2.4 MiB smaller at its peak (docs/performance.md,
// "Session 13: the executable's pages"), for about 50 more page faults.
//
// Only the code of a fixed-address executable (ELF type EXEC) is let go:
// nothing in it was written at load time, so the pages read back from the
// file are the ones that were mapped. A position-independent build, whose
// loader may relocate read-only data, keeps its pages. So does code with a
// page of its own in the mapping (smaps' Anonymous): a breakpoint, a
// debugger's or a uprobe's (bpftrace on btfgate), which the pages read back
// would not have.
func releaseInitCode() {
	exe, err := os.Executable()
	if err != nil || !fixedAddress(exe) {
		return
	}
	smaps, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer smaps.Close()
	var start, end uint64
	in := false
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":"):
			// A mapping's line: start-end perms offset dev inode [path].
			if in {
				return // the code mapping had no Anonymous line
			}
			if len(fs) < 6 || fs[1] != "r-xp" || fs[5] != exe {
				continue
			}
			lo, hi, _ := strings.Cut(fs[0], "-")
			var err1, err2 error
			start, err1 = strconv.ParseUint(lo, 16, 64)
			end, err2 = strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && end > start
		case in && len(fs) >= 2 && fs[0] == "Anonymous:":
			if fs[1] != "0" {
				return // written to since it was mapped
			}
			// The range is the process's own mapping, not Go memory: the
			// system call takes it as numbers.
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
			return
		}
	}
}

// fixedAddress reports whether the file at path is a little-endian ELF
// executable of type EXEC (not position-independent).
func fixedAddress(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var hdr [18]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return false
	}
	return bytes.HasPrefix(hdr[:], []byte(elf.ELFMAG)) && hdr[elf.EI_DATA] == byte(elf.ELFDATA2LSB) &&
		elf.Type(uint16(hdr[16])|uint16(hdr[17])<<8) == elf.ET_EXEC
}
