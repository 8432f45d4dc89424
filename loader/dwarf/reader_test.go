package dwarf

import (
	"encoding/binary"
	"slices"
	"sync"
	"testing"
)

// TestWalkVmlinux decodes every DIE of the corpus kernel. The entry count
// is the one stdlib debug/dwarf finds (it takes 18 s to walk this file).
func TestWalkVmlinux(t *testing.T) {
	s, d, units := vmlinuxUnits(t)
	if n := walkParallel(t, d, units, 2); n != 17871933 {
		t.Errorf("%d DIEs, want 17871933", n)
	}
	// Unit facts from llvm-dwarfdump.
	u := units[0]
	if u.Version != 5 || u.UnitType != UTCompile || u.AddrSize != 8 || u.Format64 || u.DataOffset != 12 || u.End != 118 {
		t.Errorf("unit 0 header %+v", u)
	}
	if u.Producer != "GNU AS 2.40" || u.Name != "/build/reproducible-path/linux-6.1.192/arch/x86/kernel/head_64.S" || Lang(u.Language) != LangMipsAssembler {
		t.Errorf("unit 0 root: producer %q name %q language %v", u.Producer, u.Name, Lang(u.Language))
	}
	if last := units[len(units)-1]; last.End != uint64(len(s.Info)) {
		t.Errorf("last unit ends at 0x%x, section at 0x%x", last.End, len(s.Info))
	}
}

// TestLocListsVmlinux decodes every location list of the corpus kernel and
// every expression in them and in exprloc attributes.
func TestLocListsVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the whole kernel")
	}
	_, d, units := vmlinuxUnits(t)
	var lists, entries, empty, exprs, ops int
	r := d.NewReader()
	var e Entry
	var op Op
	decode := func(u *Unit, expr []byte) {
		exprs++
		x := NewExprReader(expr, u, binary.LittleEndian)
		for x.Next(&op) {
			ops++
		}
		if x.Err() != nil {
			t.Fatalf("unit %d DIE 0x%x: %v", u.Index, e.Offset, x.Err())
		}
	}
	for i := range units {
		u := &units[i]
		if err := r.Seek(u); err != nil {
			t.Fatal(err)
		}
		for r.Next(&e) {
			for _, f := range e.Fields {
				switch f.Class {
				case ClassExprLoc:
					decode(u, f.Bytes)
				case ClassLocList:
					lists++
					err := d.LocList(u, f.Val, func(l LocEntry) bool {
						entries++
						if len(l.Expr) == 0 {
							empty++
						}
						decode(u, l.Expr)
						return true
					})
					if err != nil {
						t.Fatalf("unit %d DIE 0x%x: %v", i, e.Offset, err)
					}
				}
			}
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
	}
	t.Logf("%d location lists, %d entries (%d with empty expressions), %d expressions, %d operations", lists, entries, empty, exprs, ops)
	// 784642 is the number of location-list attributes, each of which
	// BTFGATE_FULL_ORACLE=1 TestOracleVmlinux matches with stdlib; the entry
	// count pins this reader's output (its list decoding is checked against
	// llvm-dwarfdump by TestLocListPerfEventRead and TestLocListsCompiled).
	if lists != 784642 || entries != 1849347 {
		t.Errorf("%d lists with %d entries, want 784642 with 1849347", lists, entries)
	}
}

// topLevel returns the offsets of the DIEs at depth 1 (the root's
// children) of u, found by a full walk or by skipping subtrees.
func topLevel(t *testing.T, d *Data, u *Unit, skip bool) []uint64 {
	r := d.NewReader()
	if err := r.Seek(u); err != nil {
		t.Fatal(err)
	}
	var e Entry
	var offs []uint64
	if !r.Next(&e) || !e.Children {
		return nil
	}
	depth := 1
	for depth > 0 && r.Next(&e) {
		if e.Tag == 0 {
			depth--
			continue
		}
		if depth == 1 {
			offs = append(offs, e.Offset)
		}
		if e.Children {
			if skip {
				r.SkipChildren()
			} else {
				depth++
			}
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return offs
}

// TestSkipChildren checks that skipping subtrees (through DW_AT_sibling
// for gcc, by walking for clang, which emits no siblings) visits the same
// top-level DIEs as a full walk.
func TestSkipChildren(t *testing.T) {
	check := func(t *testing.T, d *Data, units []Unit) {
		n := 0
		for i := range units {
			full, skipped := topLevel(t, d, &units[i], false), topLevel(t, d, &units[i], true)
			if !slices.Equal(full, skipped) {
				t.Fatalf("unit %d: skipping visits %d top-level DIEs, walking %d", i, len(skipped), len(full))
			}
			n += len(full)
		}
		if n < 10 {
			t.Fatalf("only %d top-level DIEs", n)
		}
	}
	onTestInputs(t, 97, check)
}

// onTestInputs runs check on the units of testSource built by gcc and by
// clang (DWARF 5, -O2), and on every step-th unit of the corpus kernel.
func onTestInputs(t *testing.T, step int, check func(t *testing.T, d *Data, units []Unit)) {
	for _, cc := range []string{"gcc", "clang"} {
		t.Run(cc, func(t *testing.T) {
			path := compile(t, cc, testSource, "-gdwarf-5", "-O2")
			d := mustNew(t, sectionsOf(t, path))
			units, err := d.Units()
			if err != nil {
				t.Fatal(err)
			}
			check(t, d, units)
		})
	}
	t.Run("vmlinux", func(t *testing.T) {
		_, d, units := vmlinuxUnits(t)
		var sample []Unit
		for i := 0; i < len(units); i += step {
			sample = append(sample, units[i])
		}
		check(t, d, sample)
	})
}

// TestSeekOffset follows every DW_AT_type reference of a unit and checks
// that the DIE found there has the referenced offset and a type tag.
func TestSeekOffset(t *testing.T) {
	path := compile(t, "gcc", testSource, "-gdwarf-5", "-O2")
	d := mustNew(t, sectionsOf(t, path))
	units, err := d.Units()
	if err != nil {
		t.Fatal(err)
	}
	u := &units[0]
	r, tr := d.NewReader(), d.NewReader()
	if err := r.Seek(u); err != nil {
		t.Fatal(err)
	}
	types := map[Tag]bool{TagBaseType: true, TagPointerType: true, TagStructureType: true, TagUnionType: true,
		TagEnumerationType: true, TagTypedef: true, TagConstType: true, TagVolatileType: true, TagArrayType: true,
		TagSubroutineType: true, TagRestrictType: true, TagAtomicType: true}
	var e, te Entry
	n := 0
	for r.Next(&e) {
		ref, ok := e.Val(AttrType)
		if !ok {
			continue
		}
		if FindUnit(units, ref) != 0 {
			t.Fatalf("FindUnit(0x%x) != 0", ref)
		}
		if err := tr.SeekOffset(u, ref); err != nil {
			t.Fatal(err)
		}
		if !tr.Next(&te) || te.Offset != ref || !types[te.Tag] {
			t.Fatalf("DIE 0x%x: type at 0x%x is %v at 0x%x", e.Offset, ref, te.Tag, te.Offset)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("followed only %d references", n)
	}
	if FindUnit(units, u.End) != -1 || FindUnit(units, 0) != 0 {
		t.Error("FindUnit outside the units")
	}
	if err := tr.SeekOffset(u, u.End); err == nil {
		t.Error("SeekOffset past the unit succeeded")
	}
}

// TestConcurrentReaders walks the same units from several goroutines that
// share one Data (and so its abbreviation cache); run with -race.
func TestConcurrentReaders(t *testing.T) {
	var sources []Sections
	for _, c := range compilerConfigs[:8] { // [7]: type units share the CU's abbreviations (cached path)
		path := compile(t, c.cc, testSource, c.flags...)
		sources = append(sources, sectionsOf(t, path))
	}
	for _, s := range sources {
		d := mustNew(t, s)
		units, err := d.Units()
		if err != nil {
			t.Fatal(err)
		}
		want := walkUnits(t, mustNew(t, s), units, 0, len(units), false)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := slices.Clone(units)
				if got := walkUnits(t, d, mine, 0, len(mine), false); got != want {
					t.Errorf("%d DIEs, want %d", got, want)
				}
			}()
		}
		wg.Wait()
	}
}

func TestEntryAccessors(t *testing.T) {
	e := Entry{Tag: TagVariable, Fields: []Field{
		{Attr: AttrName, Form: FormString, Class: ClassString, Bytes: []byte("x")},
		{Attr: AttrConstValue, Form: FormSdata, Class: ClassConstant, Signed: true, Val: uint64(0xfffffffffffffffe)},
	}}
	if e.Name() != "x" {
		t.Errorf("Name %q", e.Name())
	}
	if f := e.Field(AttrConstValue); f == nil || f.Int() != -2 {
		t.Errorf("const_value %+v", f)
	}
	if _, ok := e.Val(AttrType); ok || e.Field(AttrType) != nil {
		t.Error("absent attribute found")
	}
	if v, ok := e.Val(AttrConstValue); !ok || v != 0xfffffffffffffffe {
		t.Error("Val")
	}
	var none Entry
	if none.Name() != "" {
		t.Error("Name of an empty entry")
	}
}

// TestAbbrevCachePolicy checks that tables shared by several units are
// cached in Data while a table used by one unit stays private to the Reader.
func TestAbbrevCachePolicy(t *testing.T) {
	for _, c := range []struct {
		flags  []string
		cached int
	}{
		{[]string{"-gdwarf-5", "-O2"}, 0},
		{[]string{"-gdwarf-5", "-O2", "-fdebug-types-section"}, 1},
	} {
		path := compile(t, "gcc", testSource, c.flags...)
		d := mustNew(t, sectionsOf(t, path))
		units, err := d.Units()
		if err != nil {
			t.Fatal(err)
		}
		walkUnits(t, d, units, 0, len(units), false)
		if len(d.abbrevs) != c.cached {
			t.Errorf("%v: %d units, %d cached tables, want %d", c.flags, len(units), len(d.abbrevs), c.cached)
		}
	}
	// A fresh Reader per lookup: the private table is parsed twice, then
	// cached.
	path := compile(t, "gcc", testSource, "-gdwarf-5", "-O2")
	d := mustNew(t, sectionsOf(t, path))
	units, err := d.Units()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := d.NewReader().Seek(&units[0]); err != nil {
			t.Fatal(err)
		}
		if want := min(max(i-1, 0), 1); len(d.abbrevs) != want {
			t.Fatalf("after %d fresh readers: %d cached tables, want %d", i+1, len(d.abbrevs), want)
		}
	}
}
