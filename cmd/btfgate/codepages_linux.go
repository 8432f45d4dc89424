//go:build linux

package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
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
// page of its own in the mapping (an anonymous page, in /proc/self/pagemap):
// a breakpoint, a debugger's or a uprobe's (bpftrace on btfgate), which the
// pages read back would not have. /proc/self/maps and the pagemap entries
// of the code are read rather than /proc/self/smaps, which walks the page
// tables of every mapping.
func releaseInitCode() {
	exe, err := os.Executable()
	if err != nil || !fixedAddress(exe) {
		return
	}
	start, end, ok := codeMapping(exe)
	if !ok || !fileBacked(start, end) {
		return
	}
	// The range is the process's own mapping, not Go memory: the system
	// call takes it as numbers.
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
}

// codeMapping returns where the code mapping (r-xp) of the executable exe
// lies, from /proc/self/maps.
func codeMapping(exe string) (start, end uint64, ok bool) {
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, 0, false
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		// start-end perms offset dev inode [path]
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "r-xp" || fs[5] != exe {
			continue
		}
		lo, hi, _ := strings.Cut(fs[0], "-")
		var err1, err2 error
		start, err1 = strconv.ParseUint(lo, 16, 64)
		end, err2 = strconv.ParseUint(hi, 16, 64)
		return start, end, err1 == nil && err2 == nil && end > start
	}
	return 0, 0, false
}

// Bits of a /proc/PID/pagemap entry (Documentation/admin-guide/mm/pagemap.rst).
const (
	pagePresent = 1 << 63
	pageFile    = 1 << 61 // a file page or shared anonymous memory
)

// fileBacked reports whether every resident page of [start, end) is a page
// of the file it maps: none has been written to (given a private copy)
// since it was mapped. False if the pagemap cannot be read.
func fileBacked(start, end uint64) bool {
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return false
	}
	defer pm.Close()
	const page = 4096
	var buf [512 * 8]byte // the entries of 2 MiB of the mapping at a time
	for va := start; va < end; {
		n := min(uint64(len(buf)/8), (end-va)/page)
		if n == 0 {
			return false // not page-aligned: not a mapping
		}
		b := buf[:n*8]
		if _, err := pm.ReadAt(b, int64(va/page*8)); err != nil {
			return false
		}
		for i := 0; i < len(b); i += 8 {
			e := binary.NativeEndian.Uint64(b[i:])
			if e&pagePresent != 0 && e&pageFile == 0 {
				return false
			}
		}
		va += n * page
	}
	return true
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
