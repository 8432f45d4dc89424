package dwarf

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// sectionsOf extracts the DWARF sections of the ELF file at path with
// debug/elf. The file must not need relocation (ET_EXEC or ET_DYN).
func sectionsOf(tb testing.TB, path string) Sections {
	return sectionsSuffix(tb, path, "")
}

// sectionsSuffix is sectionsOf for section names ending in suffix (".dwo"
// for split DWARF objects).
func sectionsSuffix(tb testing.TB, path, suffix string) Sections {
	tb.Helper()
	f, err := elf.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if f.Type == elf.ET_REL && suffix == "" {
		tb.Fatalf("%s: relocatable objects need relocating first", path)
	}
	get := func(name string) []byte {
		s := f.Section(name + suffix)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			tb.Fatalf("%s: %s: %v", path, name, err)
		}
		return b
	}
	var order binary.ByteOrder = binary.LittleEndian
	if f.Data == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	return Sections{
		Info:       get(".debug_info"),
		Abbrev:     get(".debug_abbrev"),
		Str:        get(".debug_str"),
		LineStr:    get(".debug_line_str"),
		StrOffsets: get(".debug_str_offsets"),
		Addr:       get(".debug_addr"),
		RngLists:   get(".debug_rnglists"),
		LocLists:   get(".debug_loclists"),
		Loc:        get(".debug_loc"),
		Ranges:     get(".debug_ranges"),
		ByteOrder:  order,
		File:       filepath.Base(path),
	}
}

// vmlinuxCache holds the corpus kernel's sections, loaded once per test
// binary (they take a few hundred MB and a second to read).
var vmlinuxCache struct {
	once sync.Once
	path string
	s    Sections
}

// vmlinux returns the corpus kernel's path and sections, skipping the test
// when the corpus is absent.
func vmlinux(tb testing.TB) (string, Sections) {
	tb.Helper()
	path := corpus.Vmlinux(tb)
	vmlinuxCache.once.Do(func() {
		vmlinuxCache.path = path
		vmlinuxCache.s = sectionsOf(tb, path)
	})
	if vmlinuxCache.s.Info == nil {
		tb.Fatal("vmlinux sections failed to load")
	}
	return vmlinuxCache.path, vmlinuxCache.s
}

// vmlinuxUnits is the corpus kernel's sections, its Data and its units.
func vmlinuxUnits(tb testing.TB) (Sections, *Data, []Unit) {
	tb.Helper()
	_, s := vmlinux(tb)
	d := mustNew(tb, s)
	units, err := d.Units()
	if err != nil {
		tb.Fatal(err)
	}
	return s, d, units
}

func mustNew(tb testing.TB, s Sections) *Data {
	tb.Helper()
	d, err := New(s)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// compile builds src with cc and flags into a shared object in a temporary
// directory and returns its path; it skips the test when cc is missing.
func compile(tb testing.TB, cc string, src string, flags ...string) string {
	tb.Helper()
	if _, err := exec.LookPath(cc); err != nil {
		tb.Skipf("%s not installed: %v", cc, err)
	}
	dir := tb.TempDir()
	c := filepath.Join(dir, "t.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(dir, "t.so")
	args := append([]string{"-shared", "-nostdlib", "-fPIC", "-o", "t.so", "t.c"}, flags...)
	cmd := exec.Command(cc, args...)
	cmd.Dir = dir // split DWARF writes .dwo files next to the output
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, b)
	}
	return out
}
