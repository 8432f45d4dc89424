//go:build linux

package elffile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/btfgate/btfgate/internal/corpus"
)

// TestRelocatedSourcesReleased: once DebugSections has relocated a module's
// .debug_info into a private copy, the mapped pages of .debug_info and
// .rela.debug_info (7 MB together in ext4.ko) are no longer resident in the
// process: only the copy is.
func TestRelocatedSourcesReleased(t *testing.T) {
	f := openTest(t, corpus.Module(t, "ext4"))
	if !f.pages.mapped {
		t.Skip("the file is not mapped")
	}
	f.LayOut()
	secs, err := f.DebugSections(".debug_info", ".debug_abbrev", ".debug_str")
	if err != nil {
		t.Fatal(err)
	}
	info, rela := f.Section(".debug_info"), f.Section(".rela.debug_info")
	if info == nil || rela == nil {
		t.Fatal("ext4.ko has no .debug_info or .rela.debug_info")
	}
	rss := mappingRSS(t, uintptr(unsafe.Pointer(&f.data[0])))
	if limit := (info.Size + rela.Size) / 2; rss > limit {
		t.Errorf("the mapping of ext4.ko has %d KiB resident after relocating, want under %d KiB (half of .debug_info and its relocations)",
			rss>>10, limit>>10)
	}
	if len(secs[".debug_info"]) != int(info.Size) {
		t.Errorf("relocated .debug_info has %d bytes, want %d", len(secs[".debug_info"]), info.Size)
	}
}

// mappingRSS returns the resident bytes of the mapping starting at addr,
// from /proc/self/smaps.
func mappingRSS(t *testing.T, addr uintptr) uint64 {
	t.Helper()
	fh, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer fh.Close()
	start := fmt.Sprintf("%x-", addr)
	in := false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's header line
			in = strings.HasPrefix(fields[0], start)
			continue
		}
		if in && fields[0] == "Rss:" && len(fields) >= 2 {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", addr)
	return 0
}

// TestDropPages: the pages DropPages drops from a mapping leave the
// process's resident memory, and reading them again gives the file's bytes.
func TestDropPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	want := make([]byte, 64*os.Getpagesize())
	for i := range want {
		want[i] = byte(i*7 + i>>12)
	}
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := MapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(data)
	if !bytes.Equal(data, want) { // every page read: resident
		t.Fatal("mapping differs from the file")
	}
	addr := uintptr(unsafe.Pointer(&data[0]))
	before := mappingRSS(t, addr)
	DropPages(data[100 : len(data)-100]) // all but the first and last page
	after := mappingRSS(t, addr)
	if page := uint64(os.Getpagesize()); before < uint64(len(data)) || after > 2*page {
		t.Errorf("resident before %d KiB, after dropping %d KiB; want %d KiB, then at most the 2 partial pages",
			before>>10, after>>10, len(data)>>10)
	}
	if !bytes.Equal(data, want) {
		t.Error("dropped pages read back differently")
	}
}

// TestDiscardCopy: a relocated section is a private copy (IsCopy) whose
// whole pages Discard gives back (they read as zeros, and leave the
// process's memory); a mapped section is not, and Discard leaves it alone.
func TestDiscardCopy(t *testing.T) {
	f := openTest(t, corpus.Module(t, "ext4"))
	f.LayOut()
	secs, err := f.DebugSections(".debug_info", ".debug_str")
	if err != nil {
		t.Fatal(err)
	}
	info, str := secs[".debug_info"], secs[".debug_str"]
	if !f.IsCopy(info) || f.IsCopy(str) {
		t.Fatalf("IsCopy: .debug_info %v, .debug_str %v; want true (relocated), false (mapped)", f.IsCopy(info), f.IsCopy(str))
	}
	strBefore := bytes.Clone(str[:1<<16])
	f.Discard(str[:1<<16])
	if !bytes.Equal(str[:1<<16], strBefore) {
		t.Error("Discard changed mapped .debug_str")
	}
	page := os.Getpagesize()
	addr := uintptr(unsafe.Pointer(&info[0]))
	before := mappingRSS(t, addr)
	f.Discard(info[:len(info)/2])
	after := mappingRSS(t, addr)
	whole := (len(info)/2)/page*page - page // the first page may be partly outside
	if int(before-after) < whole {
		t.Errorf("discarding half of .debug_info (%d KiB) gave back %d KiB, want at least %d KiB", len(info)>>11, (before-after)>>10, whole>>10)
	}
	if i := bytes.IndexFunc(info[page:whole], func(r rune) bool { return r != 0 }); i >= 0 {
		t.Errorf("discarded .debug_info reads a non-zero byte at %#x", page+i)
	}
}
