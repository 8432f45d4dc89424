//go:build linux

package main

import (
	"bufio"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// codeRSS returns the resident kilobytes of the executable's code mapping
// (/proc/self/smaps).
func codeRSS(t *testing.T) int {
	t.Helper()
	_, kb := codeField(t, "Rss:")
	return kb
}

// codeField returns the start of the executable's code mapping and the
// kilobytes of one of its /proc/self/smaps fields.
func codeField(t *testing.T, field string) (uint64, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, kb := false, -1
	var start uint64
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 6 && strings.Contains(fs[0], "-"):
			in = fs[1] == "r-xp" && fs[5] == exe
			if in {
				lo, _, _ := strings.Cut(fs[0], "-")
				start, _ = strconv.ParseUint(lo, 16, 64)
			}
		case in && len(fs) >= 2 && fs[0] == field:
			kb, _ = strconv.Atoi(fs[1])
			in = false
		}
	}
	if kb < 0 {
		t.Skip("no code mapping of the executable in /proc/self/smaps")
	}
	return start, kb
}

// TestReleaseInitCode checks that the code pages mapped in before main are
// let go: the test binary, as btfgate, has run every package's
// initialisation by now.
func TestReleaseInitCode(t *testing.T) {
	if exe, err := os.Executable(); err != nil || !fixedAddress(exe) {
		t.Skip("the test binary is not a fixed-address executable: releaseInitCode leaves it alone")
	}
	before := codeRSS(t)
	releaseInitCode()
	after := codeRSS(t)
	t.Logf("code resident: %d KiB before, %d KiB after", before, after)
	if after >= before/2 {
		t.Errorf("code resident: %d KiB before the release, %d KiB after (want under half)", before, after)
	}
}

// residentPages counts the pages of r that are resident, from
// /proc/self/pagemap.
func residentPages(t *testing.T, r addrRange) int {
	t.Helper()
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip(err)
	}
	defer pm.Close()
	b := make([]byte, (r.end-r.start)/pageSize*8)
	if _, err := pm.ReadAt(b, int64(r.start/pageSize*8)); err != nil {
		t.Skip(err)
	}
	n := 0
	for i := 0; i < len(b); i += 8 {
		if binary.NativeEndian.Uint64(b[i:])&pagePresent != 0 {
			n++
		}
	}
	return n
}

// TestReleaseInitCodeFunctionTables checks that the function tables'
// pages are let go too: the test reads all of them (through
// /proc/self/mem, which maps them in as a read of the memory would), and
// after the release few are resident.
func TestReleaseInitCodeFunctionTables(t *testing.T) {
	exe, err := os.Executable()
	if err != nil || !fixedAddress(exe) {
		t.Skip("the test binary is not a fixed-address executable: releaseInitCode leaves it alone")
	}
	tab, ok := functionTables(exe)
	if !ok {
		t.Fatal("no .gopclntab found in the test binary")
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Skip(err)
	}
	defer mem.Close()
	if _, err := mem.ReadAt(make([]byte, tab.end-tab.start), int64(tab.start)); err != nil {
		t.Skip(err)
	}
	pages := int((tab.end - tab.start) / pageSize)
	before := residentPages(t, tab)
	releaseInitCode()
	after := residentPages(t, tab)
	t.Logf("function tables: %d pages, %d resident before the release, %d after", pages, before, after)
	if before < pages*9/10 {
		t.Fatalf("reading the function tables left %d of their %d pages resident", before, pages)
	}
	if after > before/4 {
		t.Errorf("function tables resident: %d pages before the release, %d after (want a quarter at most)", before, after)
	}
}

// TestReleaseInitCodeKeepsWrittenCode checks that code written to since it
// was mapped (a debugger's breakpoint, a uprobe) is not let go: the pages
// read back from the file would lose the write. The test writes a byte of
// the code as it is, through /proc/self/mem as a debugger does, which
// gives the page a copy of its own.
func TestReleaseInitCodeKeepsWrittenCode(t *testing.T) {
	if exe, err := os.Executable(); err != nil || !fixedAddress(exe) {
		t.Skip("the test binary is not a fixed-address executable: releaseInitCode leaves it alone")
	}
	start, _ := codeField(t, "Anonymous:")
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	defer mem.Close()
	at := int64(start) + 4096
	b := make([]byte, 1)
	if _, err := mem.ReadAt(b, at); err != nil {
		t.Skip(err)
	}
	if _, err := mem.WriteAt(b, at); err != nil {
		t.Skipf("cannot write the code through /proc/self/mem: %v", err)
	}
	// Give the page back afterwards (it reads the same from the file), so
	// that releaseInitCode lets the code go again for other tests.
	defer syscall.Syscall(syscall.SYS_MADVISE, uintptr(at), 4096, syscall.MADV_DONTNEED)
	if _, anon := codeField(t, "Anonymous:"); anon == 0 {
		t.Fatal("writing the code gave it no page of its own")
	}
	releaseInitCode()
	if _, anon := codeField(t, "Anonymous:"); anon == 0 {
		t.Error("releaseInitCode let go of code written since it was mapped")
	}
}
