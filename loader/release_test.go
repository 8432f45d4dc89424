package loader

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
	"unsafe"

	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/loader/dwarf"
)

// presentPages counts the pages of b that the process has mapped in, from
// /proc/self/pagemap's present bit (bit 63 of each page's entry).
func presentPages(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer f.Close()
	ps := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b))) / ps
	end := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b)) + ps - 1) / ps
	buf := make([]byte, 8*(end-start))
	if _, err := f.ReadAt(buf, int64(start*8)); err != nil {
		t.Fatalf("pagemap: %v", err)
	}
	n := 0
	for i := 0; i < len(buf); i += 8 {
		if binary.LittleEndian.Uint64(buf[i:])&(1<<63) != 0 {
			n++
		}
	}
	return n
}

// touch reads a byte of every page of b.
func touch(b []byte) (sum byte) {
	for i := 0; i < len(b); i += 4096 {
		sum += b[i]
	}
	return sum
}

// TestReleaseSideSections checks that the walk's location lists and
// abbreviations are let go behind it on a mapped kernel: the walker says
// how far it read them, and the releases unmap the pages before that.
func TestReleaseSideSections(t *testing.T) {
	in, err := Open(corpus.Vmlinux(t))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	lists, abbrev := in.secs[".debug_loclists"], in.secs[".debug_abbrev"]
	if len(lists) < 4*sideBatch || len(abbrev) < 4*sideBatch || in.ELF.IsCopy(lists) {
		t.Fatalf("the corpus kernel should have mapped .debug_loclists and .debug_abbrev of more than %d bytes: %d, %d",
			4*sideBatch, len(lists), len(abbrev))
	}
	// Walk units until their location lists pass the first half.
	w := NewWalker(in.DWARF, in.ELF.ByteOrder, WalkOptions{})
	var tab TypeTable
	var read uint64
	var last *dwarf.Unit
	for i := range in.Units {
		if err := w.Walk(&in.Units[i], &tab); err != nil {
			t.Fatal(err)
		}
		if r := w.LocationsRead(); r > 0 {
			if r <= read {
				t.Fatalf("unit %d: location lists read to %d, before the previous unit's %d", i, r, read)
			}
			read = r
		}
		last = &in.Units[i]
		if read > uint64(len(lists)/2) {
			break
		}
	}
	if read == 0 || read > uint64(len(lists)) {
		t.Fatalf("location lists read to %d of %d", read, len(lists))
	}
	touch(lists)
	touch(abbrev)
	head := bytes.Clone(lists[:read])
	before := presentPages(t, lists[:read])
	in.ReleaseLocationsBefore(read)
	in.ReleaseAbbrevBefore(last.AbbrevOffset)
	after := presentPages(t, lists[:read])
	// The pages the range's ends share with bytes outside it stay.
	if before == 0 || after > 2 {
		t.Errorf("location lists [0, %d): %d pages present before the release, %d after (want at most the two at its ends)", read, before, after)
	}
	if got := presentPages(t, abbrev[:last.AbbrevOffset]); got > 2 {
		t.Errorf(".debug_abbrev [0, %d): %d pages present after the release", last.AbbrevOffset, got)
	}
	if got := presentPages(t, lists[read+uint64(os.Getpagesize()):]); got == 0 {
		t.Errorf("the location lists after %d were released too", read)
	}
	// A release is a hint: the bytes read again are the file's.
	if !bytes.Equal(lists[:read], head) {
		t.Error("released location lists read differently")
	}
}

// TestReleaseLeavesCopies checks that a module's relocated sections, which
// exist only in the process's memory, are not let go.
func TestReleaseLeavesCopies(t *testing.T) {
	in, err := Open(corpus.Module(t, "ext4"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	lists := in.secs[".debug_loclists"]
	if !in.ELF.IsCopy(lists) {
		t.Skip("ext4.ko's .debug_loclists is not a relocated copy here")
	}
	want := bytes.Clone(lists)
	in.ReleaseLocationsBefore(uint64(len(lists)))
	if !bytes.Equal(lists, want) {
		t.Error("releasing a relocated .debug_loclists changed it")
	}
}
