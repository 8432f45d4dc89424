//go:build linux

package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/btfgate/btfgate/loader/elffile"
)

// releaseInitCode lets go the pages of the executable's code, and of its
// function tables (.gopclntab), that the process has mapped in so far: at
// the start of main, those package initialisation touched. The packages
// linked (OPA's above all) run initialisers spread over the whole text,
// and the kernel maps 64 KiB around each page faulted in, so most of the
// 8 MB of code is resident before main; the command then faults back in
// only the code it runs. A module's encode is about 2.4 MiB smaller at its
// peak for the code (docs/performance.md, "Session 13: the executable's
// pages"), for about 50 more page faults, and 0.6 MiB for the function
// tables, of which the command reads little again ("Session 17: the
// function tables"). The rest of the read-only data (type descriptors,
// tables) is read again: letting it go costs page faults and frees
// nothing.
//
// Only the pages of a fixed-address executable (ELF type EXEC) are let
// go: nothing in them was written at load time, so the pages read back
// from the file are the ones that were mapped. A position-independent
// build, whose loader may relocate read-only data, keeps its pages. So
// does a range with a page of its own in the mapping (an anonymous page,
// in /proc/self/pagemap): a breakpoint, a debugger's or a uprobe's
// (bpftrace on btfgate), which the pages read back would not have.
// /proc/self/maps and the pagemap entries of the ranges are read rather
// than /proc/self/smaps, which walks the page tables of every mapping.
func releaseInitCode() {
	exe, err := os.Executable()
	if err != nil || !fixedAddress(exe) {
		return
	}
	for _, r := range initRanges(exe) {
		if fileBacked(r.start, r.end) {
			// The range is the process's own mapping, not Go memory:
			// the system call takes it as numbers.
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(r.start), uintptr(r.end-r.start), syscall.MADV_DONTNEED)
		}
	}
}

// addrRange is [start, end) of the process's addresses.
type addrRange struct{ start, end uint64 }

// initRanges returns the ranges releaseInitCode lets go: the code mapping
// (r-xp) of the executable exe, and the whole pages of its function
// tables if they lie in one of its read-only mappings (r--p). None if
// the executable has not exactly one code mapping.
func initRanges(exe string) []addrRange {
	var code, readOnly []addrRange
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		// start-end perms offset dev inode [path]
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[5] != exe || (fs[1] != "r-xp" && fs[1] != "r--p") {
			continue
		}
		lo, hi, _ := strings.Cut(fs[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if fs[1] == "r-xp" {
			code = append(code, addrRange{start, end})
		} else {
			readOnly = append(readOnly, addrRange{start, end})
		}
	}
	if len(code) != 1 {
		return nil
	}
	ranges := code
	if tab, ok := functionTables(exe); ok {
		for _, m := range readOnly {
			if tab.start >= m.start && tab.end <= m.end {
				ranges = append(ranges, tab)
			}
		}
	}
	return ranges
}

// functionTables returns the whole pages of the .gopclntab section of the
// executable exe, a fixed-address one (fixedAddress): where its sections
// are mapped is their address.
func functionTables(exe string) (addrRange, bool) {
	f, err := elffile.Open(exe) // maps the file, reads its headers only
	if err != nil {
		return addrRange{}, false
	}
	defer f.Close()
	sec := f.Section(".gopclntab")
	if sec == nil || sec.Size == 0 || sec.Addr > math.MaxUint64-sec.Size-pageSize {
		return addrRange{}, false
	}
	r := addrRange{(sec.Addr + pageSize - 1) &^ (pageSize - 1), (sec.Addr + sec.Size) &^ (pageSize - 1)}
	return r, r.end > r.start
}

// pageSize is the size of the pages the ranges are made of.
const pageSize = 4096

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
	var buf [512 * 8]byte // the entries of 2 MiB of the mapping at a time
	for va := start; va < end; {
		n := min(uint64(len(buf)/8), (end-va)/pageSize)
		if n == 0 {
			return false // not page-aligned: not a mapping
		}
		b := buf[:n*8]
		if _, err := pm.ReadAt(b, int64(va/pageSize*8)); err != nil {
			return false
		}
		for i := 0; i < len(b); i += 8 {
			e := binary.NativeEndian.Uint64(b[i:])
			if e&pagePresent != 0 && e&pageFile == 0 {
				return false
			}
		}
		va += n * pageSize
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
