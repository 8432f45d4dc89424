package elffile

import (
	"debug/elf"
	"errors"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// checkAgainstStdlib compares the header and section table of f with what
// debug/elf reads from the same file.
func checkAgainstStdlib(t *testing.T, f *File, path string) {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatalf("debug/elf: %v", err)
	}
	defer ef.Close()
	if uint8(f.Class) != uint8(ef.Class) || f.ByteOrder != ef.ByteOrder ||
		f.Type != uint16(ef.Type) || f.Machine != uint16(ef.Machine) {
		t.Errorf("header: got class %v order %v type %d machine %d, debug/elf has %v %v %d %d",
			f.Class, f.ByteOrder, f.Type, f.Machine, ef.Class, ef.ByteOrder, ef.Type, ef.Machine)
	}
	if len(f.Sections) != len(ef.Sections) {
		t.Fatalf("%d sections, debug/elf has %d", len(f.Sections), len(ef.Sections))
	}
	for i, s := range f.Sections {
		w := ef.Sections[i]
		got := [...]uint64{uint64(s.Index), uint64(s.Type), s.Flags, s.Addr, s.Offset, s.Size, uint64(s.Link), uint64(s.Info), s.Addralign, s.Entsize}
		// debug/elf reports the uncompressed size and alignment of a
		// compressed section, and its stored size as FileSize.
		want := [...]uint64{uint64(i), uint64(w.Type), uint64(w.Flags), w.Addr, w.Offset, w.FileSize, uint64(w.Link), uint64(w.Info), w.Addralign, w.Entsize}
		if s.Flags&SHF_COMPRESSED != 0 {
			want[8] = s.Addralign
		}
		if s.Name != w.Name || got != want {
			t.Errorf("section %d: got %q %v, debug/elf has %q %v", i, s.Name, got, w.Name, want)
		}
	}
}

func TestVmlinuxSectionsMatchStdlib(t *testing.T) {
	path := corpus.Vmlinux(t)
	f := openTest(t, path)
	if f.Class != Class64 || f.Type != ET_EXEC || f.Machine != EM_X86_64 {
		t.Errorf("vmlinux header: %v type %d machine %d", f.Class, f.Type, f.Machine)
	}
	checkAgainstStdlib(t, f, path)
	if s := f.Section(".debug_info"); s == nil || s.Size < 100<<20 {
		t.Errorf("vmlinux .debug_info: %+v, want a section over 100 MiB", s)
	}
}

func TestFixtureSectionsMatchStdlib(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			checkAgainstStdlib(t, openTest(t, path), path)
		})
	}
}

func TestNewFileMatchesOpen(t *testing.T) {
	path := "testdata/tiny-aarch64_be-linux-gnu.o"
	a := openTest(t, path)
	b, err := NewFile(path, readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Sections) != len(b.Sections) || a.Class != Class64 || a.ByteOrder.String() != "BigEndian" {
		t.Fatalf("Open and NewFile disagree or wrong header: %d vs %d sections, %v %v", len(a.Sections), len(b.Sections), a.Class, a.ByteOrder)
	}
	for i := range a.Sections {
		if a.Sections[i] != b.Sections[i] {
			t.Errorf("section %d: Open %+v, NewFile %+v", i, a.Sections[i], b.Sections[i])
		}
	}
}

func TestSectionLookup(t *testing.T) {
	f := openTest(t, "testdata/tiny-gcc.o")
	s := f.Section(".debug_info")
	if s == nil || s.Name != ".debug_info" || &f.Sections[s.Index] != s {
		t.Fatalf("Section(.debug_info) = %+v", s)
	}
	if f.Section(".no_such_section") != nil {
		t.Error("Section of a missing name is not nil")
	}
	if d, err := f.SectionData(f.Section(".bss")); err != nil || d != nil {
		t.Errorf("SectionData(.bss) = %d bytes, %v; want nil, nil for SHT_NOBITS", len(d), err)
	}
}

func TestClose(t *testing.T) {
	f, err := Open("testdata/tiny-gcc.o")
	if err != nil {
		t.Fatal(err)
	}
	names := f.Sections[f.Section(".text").Index].Name
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.Symbols(); !errors.Is(err, ErrClosed) {
		t.Errorf("Symbols after Close: %v, want ErrClosed", err)
	}
	if _, err := f.SectionData(&f.Sections[1]); !errors.Is(err, ErrClosed) {
		t.Errorf("SectionData after Close: %v, want ErrClosed", err)
	}
	if _, err := f.DebugSections(".debug_info"); !errors.Is(err, ErrClosed) {
		t.Errorf("DebugSections after Close: %v, want ErrClosed", err)
	}
	if names != ".text" {
		t.Errorf("section name after Close = %q", names)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("testdata/does-not-exist.o"); err == nil {
		t.Error("Open of a missing file succeeded")
	}
	if _, err := Open("testdata"); err == nil {
		t.Error("Open of a directory succeeded")
	}
	fe := formatError(t, func() error { _, err := Open("testdata/tiny.c"); return err }())
	if fe.File != "testdata/tiny.c" || fe.Offset != 0 {
		t.Errorf("Open(tiny.c): %v", fe)
	}
}

func TestFormatErrorText(t *testing.T) {
	for _, c := range []struct {
		e    FormatError
		want string
	}{
		{FormatError{File: "a.o", Section: ".debug_info", Offset: 0x1f, Msg: "bad"}, "a.o: section .debug_info at offset 0x1f: bad"},
		{FormatError{File: "a.o", Offset: 0x3c, Msg: "bad"}, "a.o: offset 0x3c: bad"},
		{FormatError{Section: ".x", Msg: "bad", Err: errors.New("cause")}, "section .x at offset 0x0: bad: cause"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}
