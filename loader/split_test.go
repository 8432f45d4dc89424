package loader

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/loader/dwarf"
)

const splitFixtures = "../testdata/fixtures/split"

// copyFiles copies the named files of dir into a new temporary folder.
func copyFiles(t *testing.T, dir string, names ...string) string {
	t.Helper()
	tmp := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

// TestSplitUnits: a split object's skeleton units are replaced by the
// split units of its .dwo (or .dwp), which carry the skeleton's
// addr_base and low_pc and come from an attached part.
func TestSplitUnits(t *testing.T) {
	for _, obj := range []string{"one.gcc-split.exe", "one.gcc-dwp.exe", "types.clang19-dwarf4-split.o"} {
		in, err := Open(filepath.Join(splitFixtures, obj))
		if err != nil {
			t.Fatal(err)
		}
		if len(in.Units) == 0 || len(in.Split) == 0 {
			t.Errorf("%s: %d units, split files %v", obj, len(in.Units), in.Split)
		}
		for i, u := range in.Units {
			if u.Part == 0 || in.DWARF.PartKindOf(u.Part) != dwarf.PartSplit || u.Index != i {
				t.Errorf("%s: unit %d: part %d, index %d, want a split part", obj, i, u.Part, u.Index)
			}
			if u.Version == 5 && (u.UnitType != dwarf.UTSplitCompile || u.AddrBase == 0) {
				t.Errorf("%s: unit %d: type %v, addr_base 0x%x", obj, i, u.UnitType, u.AddrBase)
			}
		}
		in.Close()
	}
}

// dwpIndex returns the file offset of the .debug_cu_index of the DWARF
// package at path.
func dwpIndex(t *testing.T, path string) uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".debug_cu_index")
	if s == nil {
		t.Fatalf("%s: no .debug_cu_index", path)
	}
	return s.Offset
}

// TestBrokenDwp: a DWARF package whose unit index does not fit, or that
// has no unit for a skeleton's dwo_id, is an error naming the input, the
// package and what is wrong.
func TestBrokenDwp(t *testing.T) {
	for _, c := range []struct {
		name  string
		patch func(b []byte, idx uint64)
		want  []string
	}{
		{"units past the index", func(b []byte, idx uint64) { binary.LittleEndian.PutUint32(b[idx+8:], 0x10000000) },
			[]string{".debug_cu_index: ", "do not fit"}},
		{"bad version", func(b []byte, idx uint64) { binary.LittleEndian.PutUint32(b[idx:], 7) },
			[]string{".debug_cu_index: unsupported version 7"}},
		{"no rows", func(b []byte, idx uint64) {
			slots := uint64(binary.LittleEndian.Uint32(b[idx+12:]))
			clear(b[idx+16+slots*8 : idx+16+slots*12])
		}, []string{"skeleton unit at .debug_info+0x0 (unit 0)", "has no unit with dwo_id"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := copyFiles(t, splitFixtures, "types.gcc-dwarf4-dwp.o", "types.gcc-dwarf4-dwp.o.dwp")
			dwp := filepath.Join(tmp, "types.gcc-dwarf4-dwp.o.dwp")
			b, err := os.ReadFile(dwp)
			if err != nil {
				t.Fatal(err)
			}
			c.patch(b, dwpIndex(t, dwp))
			if err := os.WriteFile(dwp, b, 0o644); err != nil {
				t.Fatal(err)
			}
			in, err := Open(filepath.Join(tmp, "types.gcc-dwarf4-dwp.o"))
			if err == nil {
				in.Close()
				t.Fatal("no error")
			}
			for _, w := range append(c.want, filepath.Join(tmp, "types.gcc-dwarf4-dwp.o")+": ", dwp) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestParseDebugSup: .debug_sup's fields, and its malformed forms.
func TestParseDebugSup(t *testing.T) {
	name, sum, isSup, err := parseDebugSup([]byte("\x05\x00\x00common\x00\x03abc"), binary.LittleEndian.Uint16)
	if err != nil || name != "common" || string(sum) != "abc" || isSup {
		t.Errorf("got %q %q %v %v", name, sum, isSup, err)
	}
	for _, bad := range []string{"\x05\x00", "\x09\x00\x00x\x00\x00", "\x05\x00\x00common", "\x05\x00\x00c\x00\x09ab", "\x05\x00\x00c\x00\xff"} {
		if _, _, _, err := parseDebugSup([]byte(bad), binary.LittleEndian.Uint16); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
