package dwarf

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// dumpDIE is one DIE as `llvm-dwarfdump -v --debug-info` prints it.
type dumpDIE struct {
	off   uint64
	tag   string // "NULL" for null entries
	attrs []dumpAttr
}

type dumpAttr struct {
	attr, form string
	text       string // the value as printed, possibly several lines
}

var (
	dieLine  = regexp.MustCompile(`^0x([0-9a-f]+): +(DW_TAG_\w+|NULL)`)
	attrLine = regexp.MustCompile(`^ +(DW_AT_\w+) \[(DW_FORM_\w+)\]\s*(.*)$`)
	refVal   = regexp.MustCompile(`=> \{0x([0-9a-f]+)\}`)
	addrVal  = regexp.MustCompile(`address = 0x([0-9a-f]+)`)
	hexVal   = regexp.MustCompile(`^\(0x([0-9a-f]+)`)
	strVal   = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"\)?$`)
)

// llvmDump runs llvm-dwarfdump -v on the .debug_info (or .debug_info.dwo)
// of path and parses the DIEs.
func llvmDump(t *testing.T, path string) []dumpDIE {
	t.Helper()
	if _, err := exec.LookPath("llvm-dwarfdump"); err != nil {
		t.Skipf("llvm-dwarfdump not installed: %v", err)
	}
	out, err := exec.Command("llvm-dwarfdump", "-v", "--debug-info", path).Output()
	if err != nil {
		t.Fatalf("llvm-dwarfdump %s: %v", path, err)
	}
	var dies []dumpDIE
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := dieLine.FindStringSubmatch(line); m != nil {
			off, _ := strconv.ParseUint(m[1], 16, 64)
			dies = append(dies, dumpDIE{off: off, tag: m[2]})
			continue
		}
		if m := attrLine.FindStringSubmatch(line); m != nil && len(dies) > 0 {
			d := &dies[len(dies)-1]
			d.attrs = append(d.attrs, dumpAttr{attr: m[1], form: m[2], text: m[3]})
			continue
		}
		// Continuation of a multi-line value (location and range lists).
		if strings.TrimSpace(line) != "" && len(dies) > 0 {
			if d := &dies[len(dies)-1]; len(d.attrs) > 0 {
				d.attrs[len(d.attrs)-1].text += "\n" + line
			}
		}
	}
	return dies
}

// checkAgainstDump walks all units of s and compares DIE offsets, tags,
// attribute and form names, strings, references, addresses and section
// offsets with llvm-dwarfdump's view of the same file. It returns the
// number of DIEs compared.
//
// For split units, skeleton gives the skeleton units (by dwo_id) whose
// DW_AT_addr_base applies.
func checkAgainstDump(t *testing.T, path string, s Sections, skeleton map[uint64]*Unit) int {
	t.Helper()
	dump := llvmDump(t, path)
	d := mustNew(t, s)
	units, err := d.Units()
	if err != nil {
		t.Fatal(err)
	}
	for i := range units {
		if sk := skeleton[units[i].Signature]; sk != nil && units[i].UnitType == UTSplitCompile {
			units[i].AddrBase = sk.AddrBase
		}
	}
	r := d.NewReader()
	var e Entry
	i := 0
	for ui := range units {
		u := &units[ui]
		if err := r.Seek(u); err != nil {
			t.Fatal(err)
		}
		for r.Next(&e) {
			if i >= len(dump) {
				t.Fatalf("DIE 0x%x: llvm-dwarfdump has no more DIEs", e.Offset)
			}
			if msg := compareDump(&e, &dump[i]); msg != "" {
				t.Fatalf("unit %d DIE 0x%x: %s", ui, e.Offset, msg)
			}
			i++
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
	}
	if i != len(dump) {
		t.Fatalf("decoded %d DIEs, llvm-dwarfdump %d", i, len(dump))
	}
	return i
}

func compareDump(e *Entry, want *dumpDIE) string {
	if e.Offset != want.off {
		return fmt.Sprintf("offset: llvm-dwarfdump 0x%x", want.off)
	}
	if e.Tag == 0 {
		if want.tag != "NULL" {
			return "null entry, llvm-dwarfdump " + want.tag
		}
		return ""
	}
	if e.Tag.String() != want.tag {
		return fmt.Sprintf("tag %v, llvm-dwarfdump %s", e.Tag, want.tag)
	}
	if len(e.Fields) != len(want.attrs) {
		return fmt.Sprintf("%d fields, llvm-dwarfdump %d", len(e.Fields), len(want.attrs))
	}
	for i := range e.Fields {
		f, a := &e.Fields[i], &want.attrs[i]
		if f.Attr.String() != a.attr || f.Form.String() != a.form {
			return fmt.Sprintf("field %d: %v [%v], llvm-dwarfdump %s [%s]", i, f.Attr, f.Form, a.attr, a.form)
		}
		if msg := compareDumpValue(f, a.text); msg != "" {
			return fmt.Sprintf("%v [%v]: %s (llvm-dwarfdump %s)", f.Attr, f.Form, msg, a.text)
		}
	}
	return ""
}

func compareDumpValue(f *Field, text string) string {
	hex := func(re *regexp.Regexp) (uint64, bool) {
		m := re.FindStringSubmatch(text)
		if m == nil {
			return 0, false
		}
		v, err := strconv.ParseUint(m[1], 16, 64)
		return v, err == nil
	}
	switch f.Class {
	case ClassString:
		m := strVal.FindStringSubmatch(text)
		if m == nil {
			return "no string in dump"
		}
		want, err := strconv.Unquote(`"` + m[1] + `"`)
		if err != nil {
			want = m[1]
		}
		if f.Str() != want {
			return fmt.Sprintf("string %q", f.Str())
		}
	case ClassReference:
		if v, ok := hex(refVal); !ok || v != f.Val {
			return fmt.Sprintf("reference 0x%x", f.Val)
		}
	case ClassAddress:
		if strings.Contains(text, "<unresolved>") {
			// A .dwo alone has no .debug_addr; checkSplitAddrs checks these.
			return ""
		}
		v, ok := hex(addrVal)
		if !ok {
			v, ok = hex(hexVal)
		}
		if !ok || v != f.Val {
			return fmt.Sprintf("address 0x%x", f.Val)
		}
	case ClassLocList, ClassRngList, ClassLinePtr, ClassStrOffsetsPtr, ClassAddrPtr,
		ClassLocListsPtr, ClassRngListsPtr, ClassSecOffset:
		if f.Form == FormLoclistx || f.Form == FormRnglistx {
			// Printed as an index; our Val is the resolved offset.
			return ""
		}
		if v, ok := hex(hexVal); !ok || v != f.Val {
			return fmt.Sprintf("offset 0x%x", f.Val)
		}
	}
	return ""
}

// TestDumpCompiled checks the small compiled objects, and the .dwo files
// of the split-DWARF builds, against llvm-dwarfdump. This covers the one
// configuration stdlib cannot read (clang DWARF64 with strx forms) and the
// split units, which stdlib does not open.
func TestDumpCompiled(t *testing.T) {
	for _, c := range compilerConfigs {
		t.Run(fmt.Sprint(c.cc, c.flags), func(t *testing.T) {
			path := compile(t, c.cc, testSource, c.flags...)
			main := sectionsOf(t, path)
			n := checkAgainstDump(t, path, main, nil)
			dwos, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.dwo"))
			if !strings.Contains(fmt.Sprint(c.flags), "split") {
				return
			}
			if len(dwos) == 0 {
				t.Fatal("no .dwo file written")
			}
			// The skeletons in the main file give the address bases; the
			// addresses themselves are in its .debug_addr.
			skel := map[uint64]*Unit{}
			d := mustNew(t, main)
			units, err := d.Units()
			if err != nil {
				t.Fatal(err)
			}
			r := d.NewReader()
			for i := range units {
				if units[i].UnitType != UTSkeleton {
					t.Fatalf("unit %d: type %v, want a skeleton", i, units[i].UnitType)
				}
				if err := r.Seek(&units[i]); err != nil {
					t.Fatal(err)
				}
				skel[units[i].Signature] = &units[i]
			}
			for _, dwo := range dwos {
				s := sectionsSuffix(t, dwo, ".dwo")
				s.Addr = main.Addr
				n += checkAgainstDump(t, dwo, s, skel)
				checkSplitAddrs(t, path, s, skel)
			}
			t.Logf("%d DIEs match", n)
		})
	}
}

// checkSplitAddrs checks that the DW_AT_low_pc of the functions of split
// units, resolved through the skeleton's address base, are the addresses
// of the functions' symbols in the linked object.
func checkSplitAddrs(t *testing.T, path string, s Sections, skel map[uint64]*Unit) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	addr := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			addr[s.Name] = s.Value
		}
	}
	d := mustNew(t, s)
	units, err := d.Units()
	if err != nil {
		t.Fatal(err)
	}
	r := d.NewReader()
	var e Entry
	checked := 0
	for i := range units {
		units[i].AddrBase = skel[units[i].Signature].AddrBase
		if err := r.Seek(&units[i]); err != nil {
			t.Fatal(err)
		}
		for r.Next(&e) {
			lo := e.Field(AttrLowPc)
			if e.Tag != TagSubprogram || lo == nil {
				continue
			}
			want, ok := addr[e.Name()]
			if !ok {
				continue
			}
			if lo.Val != want {
				t.Errorf("%s: low_pc 0x%x, symbol at 0x%x", e.Name(), lo.Val, want)
			}
			checked++
		}
	}
	if checked < 3 {
		t.Errorf("checked only %d function addresses", checked)
	}
}
