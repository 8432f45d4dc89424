package brokentest

import (
	"bytes"
	"testing"
)

// TestOtherFileDWARF encodes inputs whose DWARF continues in other files,
// each copied alone into a folder of its own, as every case is: a program
// after dwz -m without its supplementary file, the same with the link to
// the file renamed away (its DW_FORM_GNU_ref_alt and strp_alt attributes
// then point nowhere), objects built with -gsplit-dwarf without their .dwo
// files, and a .dwo file itself (no .debug_info). Each must fail with the
// unit named; none may write a smaller BTF.
func TestOtherFileDWARF(t *testing.T) {
	var cases []brokenCase
	for _, src := range []string{"dwz/one-dwz.exe", "dwz/one-dwz5.exe", "split/types.gcc-dwarf5-split.o",
		"split/types.clang19-dwarf4-split.o", "split/one.gcc-split.exe", "split/one.clang19-split.exe",
		"split/types.gcc-dwarf5-split.dwo"} {
		cases = append(cases, brokenCase{name: src + " alone", data: readFixture(t, src), mustFail: true, source: fixturePath(src)})
	}
	for _, c := range []struct{ src, link string }{
		{"dwz/one-dwz.exe", ".gnu_debugaltlink"},
		{"dwz/one-dwz5.exe", ".debug_sup"},
	} {
		data := readFixture(t, c.src)
		name := []byte("\x00" + c.link + "\x00")
		if bytes.Count(data, name) != 1 {
			t.Fatalf("%s: section name %s not found once", c.src, c.link)
		}
		renamed := bytes.Replace(data, name, []byte("\x00"+c.link[:len(c.link)-1]+"X\x00"), 1)
		cases = append(cases, brokenCase{name: c.src + " link renamed", data: renamed, mustFail: true, source: fixturePath(c.src)})
	}
	runCases(t, "other files", cases)
}
