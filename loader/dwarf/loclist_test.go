package dwarf

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// opNames returns the operation names of expr, with the operations of
// DW_OP_entry_value blocks inlined after it, as llvm-dwarfdump prints them.
func opNames(t testing.TB, expr []byte, u *Unit) []string {
	t.Helper()
	var names []string
	x := NewExprReader(expr, u, binary.LittleEndian)
	var op Op
	for x.Next(&op) {
		names = append(names, op.Code.String())
		if op.Code == OpEntryValue || op.Code == OpGNUEntryValue {
			names = append(names, opNames(t, op.Block, u)...)
		}
	}
	if err := x.Err(); err != nil {
		t.Fatalf("expression % x: %v", expr, err)
	}
	return names
}

// locList collects the entries of a location list.
func locList(t testing.TB, d *Data, u *Unit, off uint64) []LocEntry {
	t.Helper()
	var l []LocEntry
	if err := d.LocList(u, off, func(e LocEntry) bool { l = append(l, e); return true }); err != nil {
		t.Fatalf("location list 0x%x: %v", off, err)
	}
	return l
}

// findDIE walks the units whose name contains unitName and returns a copy
// of the first DIE with tag and name (and a DW_AT_low_pc when defined is
// set), its unit, and a Reader positioned after it.
func findDIE(t testing.TB, d *Data, unitName string, tag Tag, name string) (*Unit, Entry, *Reader) {
	t.Helper()
	units, err := d.Units()
	if err != nil {
		t.Fatal(err)
	}
	r := d.NewReader()
	var e Entry
	for i := range units {
		u := &units[i]
		if err := r.Seek(u); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(u.Name, unitName) {
			continue
		}
		for r.Next(&e) {
			if e.Tag == tag && e.Name() == name && e.Field(AttrLowPc) != nil {
				return u, Entry{Offset: e.Offset, Tag: e.Tag, Children: e.Children, Fields: slices.Clone(e.Fields)}, r
			}
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
	}
	t.Fatalf("no %v %s in a unit named *%s*", tag, name, unitName)
	return nil, Entry{}, nil
}

// TestLocListPerfEventRead checks the location lists and expressions of
// perf_event_read in the corpus kernel against what llvm-dwarfdump 14
// shows for them (`llvm-dwarfdump --name=perf_event_read -c vmlinux`).
func TestLocListPerfEventRead(t *testing.T) {
	_, s := vmlinux(t)
	d := mustNew(t, s)
	u, fn, r := findDIE(t, d, "kernel/events/core.c", TagSubprogram, "perf_event_read")
	if fn.Offset != 0x026ce9be {
		t.Errorf("perf_event_read at 0x%x, want 0x026ce9be", fn.Offset)
	}
	if v, _ := fn.Val(AttrLowPc); v != 0xffffffff81265e10 {
		t.Errorf("low_pc 0x%x", v)
	}
	if f := fn.Field(AttrHighPc); f == nil || f.Class != ClassConstant || f.Val != 0xffffffff81266050-0xffffffff81265e10 {
		t.Errorf("high_pc %+v, want the constant 0x240", f)
	}
	if v, _ := fn.Val(AttrSibling); v != 0x026cf0af {
		t.Errorf("sibling 0x%x, want 0x026cf0af", v)
	}
	fb := fn.Field(AttrFrameBase)
	if fb == nil || fb.Class != ClassExprLoc || !slices.Equal(opNames(t, fb.Bytes, u), []string{"DW_OP_call_frame_cfa"}) {
		t.Errorf("frame_base %+v, want DW_OP_call_frame_cfa", fb)
	}

	type want struct {
		lo, hi uint64
		ops    []string
	}
	reg5 := []string{"DW_OP_reg5"}
	wantLists := map[string]struct {
		off, views uint64
		entries    []want
	}{
		"event": {0x5a07d0, 0x5a07c8, []want{
			{0xffffffff81265e10, 0xffffffff81265e52, reg5},
			{0xffffffff81265e52, 0xffffffff81265e95, []string{"DW_OP_reg12"}},
			{0xffffffff81265e95, 0xffffffff81265e9e, []string{"DW_OP_entry_value", "DW_OP_reg5", "DW_OP_stack_value"}},
			{0xffffffff81265e9e, 0xffffffff81266050, []string{"DW_OP_reg12"}},
		}},
		"group": {0x5a07fa, 0x5a07f6, []want{
			{0xffffffff81265e10, 0xffffffff81265e56, []string{"DW_OP_reg4"}},
			{0xffffffff81265e56, 0xffffffff81266050, []string{"DW_OP_entry_value", "DW_OP_reg4", "DW_OP_stack_value"}},
		}},
		"ret": {0x5a0853, 0x5a084b, []want{
			{0xffffffff81265e3b, 0xffffffff81265e79, []string{"DW_OP_lit0", "DW_OP_stack_value"}},
			{0xffffffff81265e9e, 0xffffffff81265f42, []string{"DW_OP_lit0", "DW_OP_stack_value"}},
			{0xffffffff81265f42, 0xffffffff81265f47, []string{"DW_OP_reg0"}},
			{0xffffffff81265f47, 0xffffffff8126604b, []string{"DW_OP_lit0", "DW_OP_stack_value"}},
		}},
	}
	// Walk the function's children: parameters, locals, nested blocks.
	var e Entry
	seen := map[string]bool{}
	sawData := false
	for depth := 1; depth > 0 && r.Next(&e); {
		if e.Tag == 0 {
			depth--
			continue
		}
		if e.Children {
			depth++
		}
		name := e.Name()
		if e.Tag == TagVariable && name == "data" {
			// DW_AT_location (DW_OP_fbreg -72)
			loc := e.Field(AttrLocation)
			x := NewExprReader(loc.Bytes, u, binary.LittleEndian)
			var op Op
			if !x.Next(&op) || op.Code != OpFbreg || int64(op.Args[0]) != -72 || x.Next(&op) {
				t.Errorf("data: location % x, want DW_OP_fbreg -72", loc.Bytes)
			}
			sawData = true
		}
		w, ok := wantLists[name]
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		loc := e.Field(AttrLocation)
		if loc == nil || loc.Class != ClassLocList || loc.Val != w.off {
			t.Errorf("%s: location %+v, want a location list at 0x%x", name, loc, w.off)
			continue
		}
		if v := e.Field(AttrGNULocviews); v == nil || v.Class != ClassSecOffset || v.Val != w.views {
			t.Errorf("%s: DW_AT_GNU_locviews %+v, want 0x%x", name, v, w.views)
		}
		got := locList(t, d, u, loc.Val)
		if len(got) != len(w.entries) {
			t.Errorf("%s: %d entries, want %d", name, len(got), len(w.entries))
			continue
		}
		for i, g := range got {
			we := w.entries[i]
			if g.Low != we.lo || g.High != we.hi || g.Default || !slices.Equal(opNames(t, g.Expr, u), we.ops) {
				t.Errorf("%s entry %d: [0x%x, 0x%x) %v, want [0x%x, 0x%x) %v", name, i, g.Low, g.High, opNames(t, g.Expr, u), we.lo, we.hi, we.ops)
			}
		}
		// The entry value of "event" holds DW_OP_reg5 as its inner block.
		if name == "event" {
			x := NewExprReader(got[2].Expr, u, binary.LittleEndian)
			var op Op
			if !x.Next(&op) || op.Code != OpEntryValue || op.Args[0] != 1 || len(op.Block) != 1 || OpCode(op.Block[0]) != OpReg5 {
				t.Errorf("event entry 2: %+v, want DW_OP_entry_value(DW_OP_reg5)", op)
			}
		}
		// Stopping early stops the walk.
		n := 0
		if err := d.LocList(u, loc.Val, func(LocEntry) bool { n++; return false }); err != nil || n != 1 {
			t.Errorf("%s: early stop visited %d entries, err %v", name, n, err)
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	for name := range wantLists {
		if !seen[name] {
			t.Errorf("%s not found under perf_event_read", name)
		}
	}
	if !sawData {
		t.Error("variable data not found")
	}
}

var (
	locHead  = regexp.MustCompile(`(?:loclist = |^\()0x([0-9a-f]+):`)
	locEntry = regexp.MustCompile(`^\s*\[0x([0-9a-f]+), 0x([0-9a-f]+)\):(.*)$`)
	opName   = regexp.MustCompile(`DW_OP_\w+`)
)

// TestLocListsCompiled checks every location list of optimized gcc and
// clang objects (DWARF 4 .debug_loc, DWARF 5 .debug_loclists with
// offset_pair/base_address for gcc and base_addressx/startx_length/loclistx
// for clang) against llvm-dwarfdump: list offset, every range and the
// operations of every expression.
func TestLocListsCompiled(t *testing.T) {
	for _, c := range compilerConfigs {
		if !slices.Contains(c.flags, "-O2") || slices.Contains(c.flags, "-gsplit-dwarf") {
			continue
		}
		t.Run(fmt.Sprint(c.cc, c.flags), func(t *testing.T) {
			path := compile(t, c.cc, testSource, c.flags...)
			dump := llvmDump(t, path)
			byOff := map[uint64]*dumpDIE{}
			for i := range dump {
				byOff[dump[i].off] = &dump[i]
			}
			s := sectionsOf(t, path)
			d := mustNew(t, s)
			units, err := d.Units()
			if err != nil {
				t.Fatal(err)
			}
			r := d.NewReader()
			var e Entry
			lists, entries := 0, 0
			for ui := range units {
				u := &units[ui]
				if err := r.Seek(u); err != nil {
					t.Fatal(err)
				}
				for r.Next(&e) {
					for _, f := range e.Fields {
						if f.Class != ClassLocList {
							continue
						}
						var text string
						for _, a := range byOff[e.Offset].attrs {
							if a.attr == f.Attr.String() {
								text = a.text
							}
						}
						lines := strings.Split(text, "\n")
						m := locHead.FindStringSubmatch(lines[0])
						if m == nil {
							t.Fatalf("DIE 0x%x %v: no list offset in %q", e.Offset, f.Attr, lines[0])
						}
						if off, _ := strconv.ParseUint(m[1], 16, 64); off != f.Val {
							t.Fatalf("DIE 0x%x %v: list at 0x%x, llvm-dwarfdump 0x%x", e.Offset, f.Attr, f.Val, off)
						}
						got := locList(t, d, u, f.Val)
						if len(got) != len(lines)-1 {
							t.Fatalf("DIE 0x%x: %d entries, llvm-dwarfdump %d:\n%s", e.Offset, len(got), len(lines)-1, text)
						}
						for i, g := range got {
							m := locEntry.FindStringSubmatch(lines[i+1])
							if m == nil {
								t.Fatalf("DIE 0x%x: cannot parse %q", e.Offset, lines[i+1])
							}
							lo, _ := strconv.ParseUint(m[1], 16, 64)
							hi, _ := strconv.ParseUint(m[2], 16, 64)
							ops := opName.FindAllString(m[3], -1)
							if g.Low != lo || g.High != hi || !slices.Equal(opNames(t, g.Expr, u), ops) {
								t.Errorf("DIE 0x%x entry %d: [0x%x, 0x%x) %v, llvm-dwarfdump %s", e.Offset, i, g.Low, g.High, opNames(t, g.Expr, u), lines[i+1])
							}
							entries++
						}
						lists++
					}
				}
				if r.Err() != nil {
					t.Fatal(r.Err())
				}
			}
			if lists < 5 {
				t.Fatalf("only %d location lists", lists)
			}
			t.Logf("%d lists, %d entries match", lists, entries)
		})
	}
}
