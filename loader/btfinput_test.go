package loader

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// elfWithBTF returns fixture with its .comment section renamed .BTF (the
// name is cut short by a NUL) and, if compressed, flagged SHF_COMPRESSED
// although it holds no compression header: a .BTF that SectionData rejects.
func elfWithBTF(t *testing.T, fixture []byte, compressed bool) []byte {
	t.Helper()
	d := bytes.Clone(fixture)
	le := binary.LittleEndian
	if !bytes.HasPrefix(d, []byte("\x7fELF\x02\x01")) {
		t.Fatal("fixture is not a little-endian ELF64 file")
	}
	shoff, shentsize, shnum, shstrndx := le.Uint64(d[0x28:]), uint64(le.Uint16(d[0x3a:])), uint64(le.Uint16(d[0x3c:])), uint64(le.Uint16(d[0x3e:]))
	sh := func(i uint64) []byte { return d[shoff+i*shentsize:][:shentsize] }
	strOff := le.Uint64(sh(shstrndx)[0x18:])
	for i := uint64(1); i < shnum; i++ {
		name := d[strOff+uint64(le.Uint32(sh(i))):]
		if bytes.HasPrefix(name, []byte(".comment\x00")) {
			copy(name, ".BTF\x00")
			if compressed {
				le.PutUint64(sh(i)[8:], le.Uint64(sh(i)[8:])|0x800) // SHF_COMPRESSED
			}
			return d
		}
	}
	t.Fatal("fixture has no .comment section")
	return nil
}

// TestReadBTFErrorsNameThePathOnce checks that each error of ReadBTF (and
// of MapBTF, which shares them) names the file once: the ELF reader's
// errors name it too, and both used to show.
func TestReadBTFErrorsNameThePathOnce(t *testing.T) {
	fixture, err := os.ReadFile("../testdata/fixtures/types.gcc-dwarf4.o")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := []struct {
		name string
		data []byte // nil: no file
		want string
	}{
		{"missing", nil, "no such file"},
		{"garbage", []byte("garbage"), "neither raw BTF"},
		{"truncated-elf", fixture[:100], "neither raw BTF"},
		{"elf-without-btf", fixture, "without a .BTF section"},
		{"elf-bad-btf", elfWithBTF(t, fixture, true), "compression header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".bin")
			if c.data != nil {
				if err := os.WriteFile(path, c.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, rerr := ReadBTF(path)
			_, _, merr := MapBTF(path)
			for fn, err := range map[string]error{"ReadBTF": rerr, "MapBTF": merr} {
				if err == nil {
					t.Fatalf("%s succeeded", fn)
				}
				msg := err.Error()
				if n := strings.Count(msg, path); n != 1 {
					t.Errorf("%s: error names %s %d times, want once: %s", fn, path, n, msg)
				}
				if !strings.HasPrefix(msg, path+": ") && !strings.Contains(msg, " "+path+": ") {
					t.Errorf("%s: error does not start with the path: %s", fn, msg)
				}
				if !strings.Contains(msg, c.want) {
					t.Errorf("%s: error %q does not mention %q", fn, msg, c.want)
				}
			}
		})
	}

	// An ELF file whose .BTF reads fine: the section's bytes come back.
	path := filepath.Join(dir, "elf-with-btf.bin")
	if err := os.WriteFile(path, elfWithBTF(t, fixture, false), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBTF(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !bytes.Contains(fixture, got) {
		t.Errorf("ReadBTF returned %d bytes that are not the section's", len(got))
	}
}

// TestMapBTFIsReadBTF checks that MapBTF gives the bytes ReadBTF copies,
// for an ELF file's .BTF and for a raw BTF file, until done unmaps them.
func TestMapBTFIsReadBTF(t *testing.T) {
	fixture, err := os.ReadFile("../testdata/fixtures/types.gcc-dwarf4.o")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"elf": elfWithBTF(t, fixture, false),
		"raw": append([]byte{0x9f, 0xeb, 1, 0}, fixture[:1000]...), // the magic is all MapBTF reads
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := ReadBTF(path)
		if err != nil {
			t.Fatal(err)
		}
		got, done, err := MapBTF(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: MapBTF gave %d bytes, ReadBTF %d, not the same", name, len(got), len(want))
		}
		if err := done(); err != nil {
			t.Errorf("%s: done: %v", name, err)
		}
	}
}
