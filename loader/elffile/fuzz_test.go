package elffile

import (
	"errors"
	"testing"
)

// exercise runs every reader over an ELF image, as a caller would, and
// fails the test if an error is not a *FormatError or if section data does
// not match its header. It returns the first error, or nil.
func exercise(t testing.TB, data []byte) error {
	t.Helper()
	f, err := NewFile("fuzz.o", data)
	if err != nil {
		checkFormatError(t, err)
		return err
	}
	var first error
	keep := func(err error) {
		if err != nil {
			checkFormatError(t, err)
			if first == nil {
				first = err
			}
		}
	}
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Index != i {
			t.Fatalf("section %d has Index %d", i, s.Index)
		}
		d, err := f.SectionData(s)
		keep(err)
		if err == nil && s.Flags&SHF_COMPRESSED == 0 && s.Type != SHT_NOBITS && s.Type != SHT_NULL && uint64(len(d)) != s.Size {
			t.Fatalf("section %d: %d bytes of data, header says %d", i, len(d), s.Size)
		}
	}
	_, err = f.Symbols()
	keep(err)
	secs, err := f.DebugSections(debugNames...)
	keep(err)
	for name := range secs {
		if f.Section(name) == nil && f.Section(".zdebug_"+name[len(".debug_"):]) == nil {
			t.Fatalf("DebugSections returned %s, which the file does not have", name)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return first
}

func checkFormatError(t testing.TB, err error) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %q is a %T, not a *FormatError", err, err)
	}
	if fe.File != "fuzz.o" || fe.Msg == "" {
		t.Fatalf("error %q lacks the file name or a message", err)
	}
}

// FuzzOpen feeds mutated objects to every reader. Seeds are the committed
// test objects (all targets, both byte orders, both classes, compressed).
func FuzzOpen(f *testing.F) {
	for _, path := range fixtures(f) {
		f.Add(readFile(f, path))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		exercise(t, data)
	})
}
