package elffile

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// checkSymbolsAgainstStdlib compares Symbols with debug/elf's Symbols.
func checkSymbolsAgainstStdlib(t *testing.T, f *File, path string) {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	want, err := ef.Symbols()
	if err != nil {
		t.Fatalf("debug/elf Symbols: %v", err)
	}
	got, err := f.Symbols()
	if err != nil {
		t.Fatalf("Symbols: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d symbols, debug/elf has %d", len(got), len(want))
	}
	bad := 0
	for i, g := range got {
		w := want[i]
		if g.Name != w.Name || g.Value != w.Value || g.Size != w.Size || g.Info != w.Info ||
			g.Other != w.Other || g.Section != uint32(w.Section) || g.Type() != uint8(elf.ST_TYPE(w.Info)) || g.Bind() != uint8(elf.ST_BIND(w.Info)) {
			t.Errorf("symbol %d: got %+v, debug/elf has %+v", i+1, g, w)
			if bad++; bad > 10 {
				t.Fatal("too many differences")
			}
		}
	}
}

func TestVmlinuxSymbolsMatchStdlib(t *testing.T) {
	path := corpus.Vmlinux(t)
	f := openTest(t, path)
	checkSymbolsAgainstStdlib(t, f, path)
	syms, _ := f.Symbols()
	if len(syms) < 100000 {
		t.Errorf("only %d symbols in vmlinux", len(syms))
	}
}

func TestModuleSymbolsMatchStdlib(t *testing.T) {
	for _, m := range corpus.Modules() {
		t.Run(m, func(t *testing.T) {
			path := corpus.Module(t, m)
			checkSymbolsAgainstStdlib(t, openTest(t, path), path)
		})
	}
}

func TestFixtureSymbolsMatchStdlib(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			f := openTest(t, path)
			checkSymbolsAgainstStdlib(t, f, path)
			syms, _ := f.Symbols()
			found := 0
			for _, s := range syms {
				// 64-bit big-endian PowerPC (ELFv1) puts function descriptors in .opd.
				if s.Section >= uint32(len(f.Sections)) {
					continue
				}
				sec := f.Sections[s.Section].Name
				if (s.Name == "dist2" || s.Name == "pick") && s.Type() == STT_FUNC && s.Bind() == STB_GLOBAL &&
					(sec == ".text" || sec == ".opd") && s.Size > 0 {
					found++
				}
			}
			if found != 2 {
				t.Errorf("found %d of the global functions dist2 and pick in .text", found)
			}
		})
	}
}

func TestSymbolsWithoutSymtab(t *testing.T) {
	data := readFile(t, "testdata/tiny-gcc.o")
	f, err := NewFile("x.o", data)
	if err != nil {
		t.Fatal(err)
	}
	// Turn .symtab into PROGBITS: the file no longer has a symbol table.
	st := f.Section(".symtab")
	hdr := shdrOffset(f, st.Index)
	f.order.putUint(data[hdr+4:], 4, SHT_PROGBITS)
	if f, err = NewFile("x.o", data); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Symbols(); err == nil || !strings.Contains(err.Error(), "no symbol table") {
		t.Errorf("Symbols without SHT_SYMTAB: %v", err)
	}
}

// TestExtendedSectionNumbering assembles an object with more sections than
// fit in e_shnum, so that e_shnum, e_shstrndx and symbols' st_shndx all
// overflow into section 0 and SHT_SYMTAB_SHNDX.
func TestExtendedSectionNumbering(t *testing.T) {
	if testing.Short() {
		t.Skip("assembles a 66000-section object")
	}
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("no assembler (as) in PATH")
	}
	const n = 66000
	dir := t.TempDir()
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, ".section .s%d,\"a\"\n.globl sym%d\nsym%d: .byte %d\n", i, i, i, i&0x7f)
	}
	if err := os.WriteFile(filepath.Join(dir, "many.s"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "many.o")
	if out, err := exec.Command(as, "-o", obj, filepath.Join(dir, "many.s")).CombinedOutput(); err != nil {
		t.Skipf("as cannot build the object: %v: %s", err, out)
	}
	f := openTest(t, obj)
	if len(f.Sections) <= SHN_LORESERVE || f.Section(".shstrtab") == nil || f.Section(".s65999") == nil {
		t.Fatalf("%d sections; .shstrtab %v, .s65999 %v", len(f.Sections), f.Section(".shstrtab"), f.Section(".s65999"))
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, s := range syms {
		var i int
		if _, err := fmt.Sscanf(s.Name, "sym%d", &i); err != nil {
			continue
		}
		seen++
		if got, want := f.Sections[s.Section].Name, fmt.Sprintf(".s%d", i); got != want {
			t.Fatalf("symbol %s is in section %d (%s), want %s", s.Name, s.Section, got, want)
		}
		d, err := f.SectionData(&f.Sections[s.Section])
		if err != nil || len(d) != 1 || d[0] != byte(i&0x7f) {
			t.Fatalf("data of %s: %v, %v", f.Sections[s.Section].Name, d, err)
		}
	}
	if seen != n {
		t.Errorf("saw %d of %d symbols", seen, n)
	}
}

// shdrOffset returns the file offset of section header i (test helper for
// corrupting headers).
func shdrOffset(f *File, i int) uint64 {
	var shoff uint64
	if f.Class == Class64 {
		shoff = f.order.u64(f.data[40:])
		return shoff + uint64(i)*uint64(f.order.u16(f.data[58:]))
	}
	shoff = uint64(f.order.u32(f.data[32:]))
	return shoff + uint64(i)*uint64(f.order.u16(f.data[46:]))
}
