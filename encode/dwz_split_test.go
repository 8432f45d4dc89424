package encode

// Tests of DWARF kept in other files, on the committed fixtures in
// testdata/fixtures/dwz (programs after dwz -m, with their supplementary
// files) and testdata/fixtures/split (objects built with -gsplit-dwarf and
// their .dwo files), each beside the same objects built plainly. The
// expected BTF is what the reference pahole 1.31 wrote for the plain
// objects (dwz/expected, split/expected, written by build.sh); pahole
// itself writes nothing for the dwz'd and split ones (the .stderr files).

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/features"
)

const (
	dwzDir   = fixtureDir + "/dwz"
	splitDir = fixtureDir + "/split"
)

// encodeRaw encodes path with opts and returns the raw BTF.
func encodeRaw(t *testing.T, path string, opts Options) []byte {
	t.Helper()
	res, err := Encode(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := res.Types.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// compareRaw compares raw BTF with the BTF in file ref by content.
func compareRaw(t *testing.T, ref string, raw []byte) *btfdiff.Report {
	t.Helper()
	ours, err := btfdiff.FromBytes("btfgate", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	refSet, err := btfdiff.Load(ref, "")
	if err != nil {
		t.Fatal(err)
	}
	return btfdiff.Compare(refSet, ours)
}

// reportEqual reports whether rep shows no difference.
func reportEqual(rep *btfdiff.Report) bool {
	if len(rep.OnlyA) > 0 || len(rep.OnlyB) > 0 {
		return false
	}
	for _, row := range rep.Kinds {
		if row.A != row.B || row.OnlyA != 0 || row.OnlyB != 0 {
			return false
		}
	}
	return true
}

// dwzPrograms are the dwz'd programs of testdata/fixtures/dwz and the
// same programs before dwz.
func dwzPrograms() map[string]string {
	m := map[string]string{
		// gcc, after dwz -m and after dwz -5 -m.
		"one-dwz.exe": "one.exe", "one-dwz5.exe": "one.exe", "two-dwz.exe": "two.exe", "two-dwz5.exe": "two.exe",
		// clang-19 (DWARF 4), after dwz -m and after dwz alone.
		"one.clang19-dwz.exe": "one.clang19.exe", "two.clang19-dwz.exe": "two.clang19.exe",
		"one.clang19-dwzsingle.exe": "one.clang19.exe",
	}
	return m
}

// TestDwzFixturesEqualPlain: each program after dwz -m (GNU forms and
// .gnu_debugaltlink), dwz -5 -m (DWARF 5 forms and .debug_sup) or dwz
// alone (partial units in the program), read with the supplementary file
// its link names, gives the BTF of the program before dwz, byte for byte
// and with -j1 as with -j2, whose content is the reference pahole's for
// that program: each compile unit is read with the partial units it
// needs, each taken in after the DIE that first refers into it, which is
// where dwz took the DIEs from in these programs.
func TestDwzFixturesEqualPlain(t *testing.T) {
	for prog, plainProg := range dwzPrograms() {
		for name, set := range ltoFeatureSets() {
			t.Run(prog+"/"+name, func(t *testing.T) {
				opts := Options{Features: set, Jobs: 2}
				raw := encodeRaw(t, filepath.Join(dwzDir, prog), opts)
				plain := encodeRaw(t, filepath.Join(dwzDir, plainProg), opts)
				ref := filepath.Join(dwzDir, "expected", plainProg+"."+name+".btf")
				if rep := compareRaw(t, ref, raw); !reportEqual(rep) {
					t.Errorf("differs from pahole's BTF of %s: %+v", plainProg, rep.Kinds)
				}
				if rep := compareRaw(t, ref, plain); !reportEqual(rep) {
					t.Errorf("%s: differs from pahole's: %+v", plainProg, rep.Kinds)
				}
				if string(raw) != string(plain) {
					t.Errorf("not the bytes of %s's BTF (%d bytes, %d without dwz)", plainProg, len(raw), len(plain))
				}
				opts.Jobs = 1
				if one := encodeRaw(t, filepath.Join(dwzDir, prog), opts); string(one) != string(raw) {
					t.Errorf("-j1 gives other bytes than -j2")
				}
				// the summary counts compile units, not dwz's partial units
				dres, derr := Encode(filepath.Join(dwzDir, prog), opts)
				pres, perr := Encode(filepath.Join(dwzDir, plainProg), opts)
				if derr != nil || perr != nil || dres.Units != pres.Units {
					t.Errorf("%d compile units, %d without dwz (%v, %v)", dres.Units, pres.Units, derr, perr)
				}
			})
		}
	}
}

// copyFixture copies the named files of dir into a new temporary folder
// and returns it.
func copyFixture(t *testing.T, dir string, names ...string) string {
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

// TestDwzSupplement: without its supplementary file a dwz'd program is an
// error naming the program, the first unit that needs the file, the file
// and where it was looked for; --dwarf-supplement gives it; a supplement
// whose build-id is not the one the link names is refused.
func TestDwzSupplement(t *testing.T) {
	tmp := copyFixture(t, dwzDir, "one-dwz.exe", "one-dwz5.exe")
	opts := Options{Features: features.Default(), Jobs: 2}
	for _, c := range []struct{ prog, sup, section string }{
		{"one-dwz.exe", "common.dwz", ".gnu_debugaltlink"},
		{"one-dwz5.exe", "common5.dwz", ".debug_sup"},
	} {
		path := filepath.Join(tmp, c.prog)
		_, err := Encode(path, opts)
		if err == nil {
			t.Fatalf("%s without %s: no error", c.prog, c.sup)
		}
		for _, want := range []string{path + ":", "the unit at .debug_info+0x0", `"` + c.sup + `"`, c.section,
			filepath.Join(tmp, c.sup) + " (absent)", "/usr/lib/debug/.dwz/" + c.sup, "--dwarf-supplement"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		given := opts
		given.Supplement = filepath.Join(dwzDir, c.sup)
		raw := encodeRaw(t, path, given)
		if rep := compareRaw(t, filepath.Join(dwzDir, "expected", "one.exe.default.btf"), raw); !reportEqual(rep) {
			t.Errorf("%s with --dwarf-supplement: differs from pahole's BTF of one.exe", c.prog)
		}
	}
	wrong := opts
	wrong.Supplement = filepath.Join(dwzDir, "common5.dwz")
	_, err := Encode(filepath.Join(tmp, "one-dwz.exe"), wrong)
	if err == nil || !strings.Contains(err.Error(), "common5.dwz: it has no id, .gnu_debugaltlink names 395c381c") {
		t.Errorf("one-dwz.exe with common5.dwz: error %v, want a build-id mismatch", err)
	}
}

// splitObjects are the split fixtures and their plain builds.
func splitObjects() map[string]string {
	m := map[string]string{"one.gcc-split.exe": "one.gcc.exe", "one.clang19-split.exe": "one.clang19.exe",
		// With a DWARF package (OBJ.dwp) instead of .dwo files.
		"one.gcc-dwp.exe": "one.gcc.exe", "one.clang19-dwp.exe": "one.clang19.exe", "types.gcc-dwarf4-dwp.o": "types.gcc-dwarf4.o",
		// clang-19 with DW_OP_convert in split units (-mllvm -dwarf-op-convert=Enable).
		"types.clang19-dwarf5-convert-split.o": "types.clang19-dwarf5.o", "one.clang19-convert-split.exe": "one.clang19.exe"}
	for _, src := range []string{"types", "clang_abi"} {
		for _, cc := range []string{"gcc", "clang19"} {
			for _, v := range []string{"4", "5"} {
				base := src + "." + cc + "-dwarf" + v
				m[base+"-split.o"] = base + ".o"
			}
		}
	}
	return m
}

// convertType is a base type clang-19 makes for the operand of a
// DW_OP_convert in a location expression: dwarf is its DW_AT_name, key its
// btfdiff key in the plain build's BTF (pahole renames a type of 5 bytes
// to __SANITIZED_FAKE_INT__ of 4).
type convertType struct{ dwarf, key string }

// splitWithoutConvert lists the split objects whose BTF lacks types their
// plain builds' has, and those types: the DW_OP_convert base types of
// clang-19's DWARF 5 units. clang emits DW_OP_convert, and so these base
// types, in a unit that is not split only: for split units its
// -dwarf-op-convert is off by default (the location expressions of the
// .dwo omit the conversions), so neither the object nor its .dwo or .dwp
// has them. The *-convert-split fixtures, built with -dwarf-op-convert
// forced on, have them in the .dwo and give the plain build's bytes.
func splitWithoutConvert() map[string][]convertType {
	types := []convertType{
		{"DW_ATE_unsigned_32", "INT DW_ATE_unsigned_32 size=4 enc=none off=0 bits=32"},
		{"DW_ATE_unsigned_64", "INT DW_ATE_unsigned_64 size=8 enc=none off=0 bits=64"},
		{"DW_ATE_unsigned_8", "INT DW_ATE_unsigned_8 size=1 enc=none off=0 bits=8"},
		{"DW_ATE_unsigned_40", "INT __SANITIZED_FAKE_INT__ size=4 enc=none off=0 bits=32"},
	}
	return map[string][]convertType{
		"types.clang19-dwarf5-split.o": types,
		"one.clang19-split.exe":        types[:2],
		"one.clang19-dwp.exe":          types[:2],
	}
}

// TestSplitFixturesEqualPlain: each object built with -gsplit-dwarf, read
// with its .dwo files or its DWARF package, gives the bytes of the same
// object built without it, which equal the reference pahole's BTF by
// content; but for the objects of splitWithoutConvert, whose BTF is the
// plain build's less exactly the listed types (checkWithoutConvert).
func TestSplitFixturesEqualPlain(t *testing.T) {
	without := splitWithoutConvert()
	for split, plain := range splitObjects() {
		for name, set := range ltoFeatureSets() {
			t.Run(split+"/"+name, func(t *testing.T) {
				opts := Options{Features: set, Jobs: 2}
				raw := encodeRaw(t, filepath.Join(splitDir, split), opts)
				want := encodeRaw(t, filepath.Join(splitDir, plain), opts)
				ref := filepath.Join(splitDir, "expected", plain+"."+name+".btf")
				if rep := compareRaw(t, ref, want); !reportEqual(rep) {
					t.Errorf("%s: differs from pahole's: %+v", plain, rep.Kinds)
				}
				missing, listed := without[split]
				if !listed {
					if string(raw) != string(want) {
						rep := compareRaw(t, ref, raw)
						t.Errorf("not the bytes of %s's BTF: %+v, only in %s: %+v, only in %s: %+v", plain, rep.Kinds, plain, rep.OnlyA, split, rep.OnlyB)
					}
					return
				}
				checkWithoutConvert(t, split, plain, compareRaw(t, ref, raw), len(raw), len(want), missing)
			})
		}
	}
}

// checkWithoutConvert checks that the BTF of split (rep, against the
// plain build's reference, and its size) is the plain build's less exactly
// the types missing, and that no file of the split build holds their
// names while the plain object does.
func checkWithoutConvert(t *testing.T, split, plain string, rep *btfdiff.Report, size, plainSize int, missing []convertType) {
	t.Helper()
	if len(rep.OnlyB) != 0 || len(rep.Types.Added)+len(rep.Types.Changed) != 0 ||
		len(rep.Functions.Added)+len(rep.Functions.Removed)+len(rep.Functions.Changed) != 0 {
		t.Errorf("differs from %s's BTF by more than types it lacks: only in %s %+v, types %+v, functions %+v",
			plain, split, rep.OnlyB, rep.Types, rep.Functions)
	}
	var keys []string
	for _, d := range rep.OnlyA {
		keys = append(keys, fmt.Sprintf("%s x%d", d.Key, d.Count))
	}
	var want []string
	shorter := 0
	for _, m := range missing {
		want = append(want, m.key+" x1")
		// An INT is 16 bytes; its name, unique in the string table, one more than its length.
		shorter += 16 + len(strings.Fields(m.key)[1]) + 1
	}
	slices.Sort(want)
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("types only in %s's BTF: %q, want %q", plain, keys, want)
	}
	if size != plainSize-shorter {
		t.Errorf("%d bytes, want %d: %s's %d less %d of the types it lacks", size, plainSize-shorter, plain, plainSize, shorter)
	}
	files, err := filepath.Glob(filepath.Join(splitDir, strings.TrimSuffix(split, ".o")+"*"))
	if err != nil || len(files) < 2 {
		t.Fatalf("the files of %s and its .dwo or .dwp: %q, %v", split, files, err)
	}
	plainData, err := os.ReadFile(filepath.Join(splitDir, plain))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		if !bytes.Contains(plainData, []byte(m.dwarf)) {
			t.Errorf("%s does not hold %q", plain, m.dwarf)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range missing {
			if bytes.Contains(data, []byte(m.dwarf)) {
				t.Errorf("%s holds %q: its BTF should have that type", filepath.Base(f), m.dwarf)
			}
		}
	}
}

// TestSplitMissingDwo: a split object whose .dwo is not there is an error
// naming the object, the skeleton unit, the .dwo and where it was looked
// for (pahole warns and writes nothing, exit 0:
// split/expected/one.gcc-split.exe.default.stderr).
func TestSplitMissingDwo(t *testing.T) {
	tmp := copyFixture(t, splitDir, "types.gcc-dwarf5-split.o", "one.gcc-split.exe", "one.gcc-split-dwz_dev.dwo")
	for _, c := range []struct{ obj, dwo, unit string }{
		{"types.gcc-dwarf5-split.o", "types.gcc-dwarf5-split.dwo", "skeleton unit at .debug_info+0x0 (unit 0)"},
		{"one.gcc-split.exe", "one.gcc-split-dwz_one.dwo", "skeleton unit at .debug_info+0x35 (unit 1)"},
	} {
		path := filepath.Join(tmp, c.obj)
		_, err := Encode(path, Options{Features: features.Default(), Jobs: 2})
		if err == nil {
			t.Fatalf("%s without %s: no error", c.obj, c.dwo)
		}
		for _, want := range []string{path + ":", c.unit, `"` + c.dwo + `"`, "not found", filepath.Join(tmp, c.dwo)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	}
}

// TestDwzDanglingAltRef: a DW_FORM_GNU_ref_alt past the end of the
// supplementary file's .debug_info is an error naming the program, the
// place of the attribute and the supplementary file.
func TestDwzDanglingAltRef(t *testing.T) {
	tmp := copyFixture(t, dwzDir, "one-dwz.exe", "common.dwz")
	path := filepath.Join(tmp, "one-dwz.exe")
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	info := f.Section(".debug_info")
	f.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first typedef of the partial unit at 0: DIE 0x15, whose
	// DW_AT_type at 0x1c is a DW_FORM_GNU_ref_alt (4 bytes) to 0x19.
	at := info.Offset + 0x1c
	if got := binary.LittleEndian.Uint32(data[at:]); got != 0x19 {
		t.Fatalf("the fixture changed: 0x%x at .debug_info+0x1c, want the alt reference 0x19", got)
	}
	binary.LittleEndian.PutUint32(data[at:], 0x7ffffff0)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Encode(path, Options{Features: features.Default(), Jobs: 2})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{path + ":", ".debug_info+0x1c (unit 0)", "DW_FORM_GNU_ref_alt reference 0x7ffffff0",
		"past the end of the supplementary file " + filepath.Join(tmp, "common.dwz")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestDwzNoteZero: a program with the Linux LTO_INFO note saying 0, as
// every kernel without LTO has, after dwz alone (partial units in the
// file, DW_FORM_ref_addr into them, DW_UT_partial): its units are read
// as the units of the program before dwz are (each with what it imports)
// whatever the note says, and the BTF is the bytes of the program before
// dwz, which equal pahole's by content (pahole writes nothing for the
// dwz'd one).
func TestDwzNoteZero(t *testing.T) {
	for name, set := range ltoFeatureSets() {
		raw := encodeRaw(t, filepath.Join(dwzDir, "one-note0-dwz.exe"), Options{Features: set, Jobs: 2})
		plain := encodeRaw(t, filepath.Join(dwzDir, "one-note0.exe"), Options{Features: set, Jobs: 2})
		if rep := compareRaw(t, filepath.Join(dwzDir, "expected", "one-note0.exe."+name+".btf"), raw); !reportEqual(rep) {
			t.Errorf("%s: differs from pahole's BTF of one-note0.exe: %+v", name, rep.Kinds)
		}
		if string(raw) != string(plain) {
			t.Errorf("%s: not the bytes of one-note0.exe's BTF (%d bytes, %d)", name, len(raw), len(plain))
		}
	}
}
