package elfedit

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
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
			if err := setSections(p, Section{".BTF", one}, Section{".BTF.base", []byte("base")}); err != nil {
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
			if err := setSections(p, Section{".BTF", two}); err != nil {
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

// TestReplacesAllocatedEmptySection replaces the allocated, empty .BTF
// that ld.lld leaves in kbuild's .tmp_vmlinux.btf (and, in a second case,
// the same section turned SHT_NOBITS): the section gets the new data and
// becomes PROGBITS, every other section and the program headers are
// unchanged, and kbuild's extraction (objcopy --only-section=.BTF, with
// llvm-objcopy and GNU objcopy where installed) yields the new data.
func TestReplacesAllocatedEmptySection(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "lld-empty-btf.elf"))
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte("BTF!"), 50)
	for _, nobits := range []bool{false, true} {
		name := "progbits"
		if nobits {
			name = "nobits"
		}
		t.Run(name, func(t *testing.T) {
			in := append([]byte(nil), orig...)
			if nobits {
				setSectionType(t, in, ".BTF", elf.SHT_NOBITS)
			}
			p := filepath.Join(t.TempDir(), "vmlinux")
			if err := os.WriteFile(p, in, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := setSections(p, Section{".BTF", payload}); err != nil {
				t.Fatalf("SetSections: %v", err)
			}
			got, s := readSection(t, p, ".BTF")
			if !bytes.Equal(got, payload) {
				t.Fatalf(".BTF = %d bytes, want the %d written", len(got), len(payload))
			}
			if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_ALLOC == 0 || s.Addr != 0x400066 {
				t.Errorf(".BTF type %v flags %v addr %#x, want PROGBITS, alloc kept, address kept", s.Type, s.Flags, s.Addr)
			}
			assertOthersUnchanged(t, orig, p)
			for _, objcopy := range []string{"llvm-objcopy-19", "objcopy"} {
				if _, err := exec.LookPath(objcopy); err != nil {
					t.Logf("%s not installed: extraction not checked with it", objcopy)
					continue
				}
				out := filepath.Join(t.TempDir(), "btf.o")
				cmd := exec.Command(objcopy, "--only-section=.BTF", "--set-section-flags", ".BTF=alloc,readonly", "--strip-all", p, out)
				if msg, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", objcopy, err, msg)
				}
				if got, _ := readSection(t, out, ".BTF"); !bytes.Equal(got, payload) {
					t.Errorf("%s extracted %d bytes of .BTF, want the %d written", objcopy, len(got), len(payload))
				}
			}
		})
	}
}

// setSectionType rewrites the type of section name in the ELF image b.
func setSectionType(t *testing.T, b []byte, name string, typ elf.SectionType) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	shoff := binary.LittleEndian.Uint64(b[40:])
	for i, s := range f.Sections {
		if s.Name == name {
			binary.LittleEndian.PutUint32(b[shoff+uint64(i)*64+4:], uint32(typ))
			return
		}
	}
	t.Fatalf("no section %s", name)
}

// assertOthersUnchanged checks that the program headers and the data of
// every section but .BTF are the same in the file at path as in orig.
func assertOthersUnchanged(t *testing.T, orig []byte, path string) {
	t.Helper()
	before, err := elf.NewFile(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	after, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	if len(before.Progs) != len(after.Progs) {
		t.Fatalf("%d program headers, want %d", len(after.Progs), len(before.Progs))
	}
	for i := range before.Progs {
		if before.Progs[i].ProgHeader != after.Progs[i].ProgHeader {
			t.Errorf("program header %d changed: %+v -> %+v", i, before.Progs[i].ProgHeader, after.Progs[i].ProgHeader)
		}
	}
	for _, s := range before.Sections {
		if s.Name == ".BTF" || s.Name == ".shstrtab" || s.Type == elf.SHT_NULL {
			continue
		}
		a := after.Section(s.Name)
		if a == nil || a.Offset != s.Offset || a.Size != s.Size || a.Addr != s.Addr {
			t.Errorf("section %s moved or lost", s.Name)
			continue
		}
		x, _ := s.Data()
		y, _ := a.Data()
		if !bytes.Equal(x, y) {
			t.Errorf("section %s data changed", s.Name)
		}
	}
}

func TestNotELF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	os.WriteFile(p, []byte("hello, this is not an ELF file at all.................................."), 0o644)
	if err := setSections(p, Section{".BTF", nil}); err == nil {
		t.Fatal("accepted a non-ELF file")
	}
	if b, _ := os.ReadFile(p); !bytes.HasPrefix(b, []byte("hello")) {
		t.Error("the input was modified on failure")
	}
}

// setSections rewrites the file at path with secs added or replaced.
func setSections(path string, secs ...Section) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	out, err := Edit(path, data, secs...)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, st.Mode().Perm())
}
