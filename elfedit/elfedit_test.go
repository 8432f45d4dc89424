package elfedit

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func readSection(t *testing.T, path, name string) ([]byte, *elf.Section) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("debug/elf cannot read the edited file: %v", err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		return nil, nil
	}
	d, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAddThenReplace(t *testing.T) {
	for _, fx := range []string{"types.gcc-dwarf5.o", "types.clang-dwarf5.so", "types.clang-aarch64_be.o", "types.clang-i386.o"} {
		t.Run(fx, func(t *testing.T) {
			p := copyFixture(t, fx)
			before, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			one := []byte("first BTF payload")
			if err := SetSections(p, Section{".BTF", one}, Section{".BTF.base", []byte("base")}); err != nil {
				t.Fatal(err)
			}
			got, sec := readSection(t, p, ".BTF")
			if !bytes.Equal(got, one) || sec.Flags&elf.SHF_ALLOC != 0 || sec.Type != elf.SHT_PROGBITS {
				t.Fatalf(".BTF = %q flags %v type %v", got, sec.Flags, sec.Type)
			}
			if b, _ := readSection(t, p, ".BTF.base"); string(b) != "base" {
				t.Errorf(".BTF.base = %q", b)
			}
			// Every other section keeps its bytes.
			orig, _ := elf.NewFile(bytes.NewReader(before))
			for _, s := range orig.Sections {
				if s.Type == elf.SHT_NOBITS {
					continue
				}
				want, _ := s.Data()
				got, _ := readSection(t, p, s.Name)
				// The section name table (clang shares it with .strtab) only
				// grows by the new names.
				if s.Type == elf.SHT_STRTAB && bytes.HasPrefix(got, want) {
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("section %s changed", s.Name)
				}
			}
			two := bytes.Repeat([]byte("x"), 1000)
			if err := SetSections(p, Section{".BTF", two}); err != nil {
				t.Fatal(err)
			}
			if got, _ := readSection(t, p, ".BTF"); !bytes.Equal(got, two) {
				t.Errorf("replaced .BTF = %d bytes", len(got))
			}
			f, _ := elf.Open(p)
			n := 0
			for _, s := range f.Sections {
				if s.Name == ".BTF" {
					n++
				}
			}
			f.Close()
			if n != 1 {
				t.Errorf("%d .BTF sections after replacing", n)
			}
			if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640 kept", st.Mode().Perm())
			}
			if _, err := exec.LookPath("readelf"); err == nil {
				if out, err := exec.Command("readelf", "-S", "-W", p).CombinedOutput(); err != nil || !bytes.Contains(out, []byte(".BTF")) {
					t.Errorf("readelf -S: %v\n%s", err, out)
				}
			}
		})
	}
}

func TestRefusesAllocatedSection(t *testing.T) {
	p := copyFixture(t, "types.gcc-dwarf5.o")
	err := SetSections(p, Section{".text", []byte("no")})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("allocated")) {
		t.Fatalf("error = %v, want a refusal naming an allocated section", err)
	}
}

func TestNotELF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	os.WriteFile(p, []byte("hello, this is not an ELF file at all.................................."), 0o644)
	if err := SetSections(p, Section{".BTF", nil}); err == nil {
		t.Fatal("accepted a non-ELF file")
	}
	if b, _ := os.ReadFile(p); !bytes.HasPrefix(b, []byte("hello")) {
		t.Error("the input was modified on failure")
	}
}
