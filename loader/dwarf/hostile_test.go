package dwarf

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// walkAll decodes everything reachable in d: all unit headers and DIEs
// (skipping the children of every third DIE with children), every location
// list and every expression, following up to 64 references per unit with
// SeekOffset. It returns the first error met, and fails the test if an
// error is not a *DecodeError.
func walkAll(tb testing.TB, d *Data) (dies int, err error) {
	check := func(e error) {
		if e == nil {
			return
		}
		var de *DecodeError
		if !errors.As(e, &de) {
			tb.Fatalf("error %T %v is not a DecodeError", e, e)
		}
		if err == nil {
			err = e
		}
	}
	units, uerr := d.Units()
	check(uerr)
	var r, ref *Reader
	var e, re Entry
	for i := range units {
		u := &units[i]
		r = d.NewReader() // errors are sticky: a fresh reader per unit
		if serr := r.Seek(u); serr != nil {
			check(serr)
			continue
		}
		refs := 0
		withChildren := 0
		for r.Next(&e) {
			dies++
			for fi := range e.Fields {
				f := &e.Fields[fi]
				switch f.Class {
				case ClassLocList:
					check(d.LocList(u, f.Val, func(l LocEntry) bool {
						check(walkExpr(l.Expr, u))
						return true
					}))
				case ClassExprLoc:
					check(walkExpr(f.Bytes, u))
				case ClassReference:
					if refs < 64 && f.Form != FormRefAddr {
						refs++
						ref = d.NewReader()
						if ref.SeekOffset(u, f.Val) == nil {
							ref.Next(&re)
						}
						check(ref.Err())
					}
				}
			}
			if e.Children {
				withChildren++
				if withChildren%3 == 0 {
					r.SkipChildren()
				}
			}
		}
		check(r.Err())
		if r.Next(&e) {
			tb.Fatal("Next succeeded after the end or an error")
		}
	}
	return dies, err
}

// walkExpr decodes every operation of expr and of its entry-value blocks.
func walkExpr(expr []byte, u *Unit) error {
	x := NewExprReader(expr, u, binary.LittleEndian)
	var op Op
	for x.Next(&op) {
		if op.Code == OpEntryValue || op.Code == OpGNUEntryValue {
			if err := walkExpr(op.Block, u); err != nil {
				return err
			}
		}
	}
	return x.Err()
}

// sectionList returns pointers to the byte slices of s, in packing order.
func sectionList(s *Sections) []*[]byte {
	return []*[]byte{&s.Info, &s.Abbrev, &s.Str, &s.LineStr, &s.StrOffsets, &s.Addr, &s.RngLists, &s.LocLists, &s.Loc, &s.Ranges}
}

// packSections serializes s for the fuzzer: each section as a 4-byte
// little-endian length and its bytes.
func packSections(s Sections) []byte {
	var out []byte
	for _, p := range sectionList(&s) {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(*p)))
		out = append(out, *p...)
	}
	return out
}

// unpackSections is the inverse of packSections; it accepts any input,
// truncating lengths that run past the end.
func unpackSections(b []byte) Sections {
	s := Sections{ByteOrder: binary.LittleEndian, File: "fuzz"}
	for _, p := range sectionList(&s) {
		if len(b) < 4 {
			break
		}
		n := int(min(uint64(binary.LittleEndian.Uint32(b)), uint64(len(b)-4)))
		*p = b[4 : 4+n : 4+n]
		b = b[4+n:]
	}
	return s
}

func copySections(s Sections) Sections {
	c := s
	for _, p := range sectionList(&c) {
		*p = append([]byte(nil), *p...)
	}
	return c
}

// seedSections returns the sections of the committed fuzz seeds.
func seedSections(tb testing.TB) map[string]Sections {
	files, err := filepath.Glob("testdata/seed/*.bin")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no fuzz seeds in testdata/seed: %v", err)
	}
	m := map[string]Sections{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		m[filepath.Base(f)] = unpackSections(b)
	}
	return m
}

// TestSeedsDecode checks that the committed seeds are valid DWARF that
// walkAll decodes without error.
func TestSeedsDecode(t *testing.T) {
	for name, s := range seedSections(t) {
		n, err := walkAll(t, mustNew(t, s))
		if err != nil || n < 50 {
			t.Errorf("%s: %d DIEs, %v", name, n, err)
		}
	}
}

// TestHostileMutations truncates each section of each seed at many
// lengths and overwrites bytes with 0x00, 0xff and 0x80 at many offsets:
// decoding must end with a DecodeError or succeed, never panic or hang.
func TestHostileMutations(t *testing.T) {
	for name, base := range seedSections(t) {
		errs, runs := 0, 0
		for si, p := range sectionList(&base) {
			n := len(*p)
			if n == 0 {
				continue
			}
			step := max(1, n/300)
			for off := 0; off < n; off += step {
				// Truncate.
				s := base
				*sectionList(&s)[si] = (*p)[:off]
				if decodeFails(t, s) {
					errs++
				}
				runs++
				// Overwrite.
				for _, v := range []byte{0x00, 0xff, 0x80} {
					s := copySections(base)
					(*sectionList(&s)[si])[off] = v
					if decodeFails(t, s) {
						errs++
					}
					runs++
				}
			}
		}
		t.Logf("%s: %d mutated inputs, %d rejected with a DecodeError", name, runs, errs)
		if errs == 0 {
			t.Errorf("%s: no mutation was detected", name)
		}
	}
}

// decodeFails runs New and walkAll on s and reports whether they returned
// an error (which must be a DecodeError).
func decodeFails(t *testing.T, s Sections) bool {
	d, err := New(s)
	if err != nil {
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("New: %v is not a DecodeError", err)
		}
		return true
	}
	_, err = walkAll(t, d)
	return err != nil
}

// hostileUnit builds a one-unit DWARF 4 .debug_info with the given DIE
// bytes and a .debug_abbrev, for targeted malformed inputs.
func hostileUnit(dies []byte) []byte {
	body := append([]byte{4, 0, 0, 0, 0, 0, 8}, dies...) // version 4, abbrev offset 0, address size 8
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// TestHostileTargeted checks specific malformed inputs for the error they
// must produce.
func TestHostileTargeted(t *testing.T) {
	// Abbreviation 1: DW_TAG_compile_unit, children, DW_AT_name strp,
	// DW_AT_byte_size block1. Abbreviation 2: DW_TAG_base_type, no
	// children, DW_AT_name with form 0x30 (unknown). Abbreviation 3:
	// DW_TAG_variable, DW_AT_type indirect.
	abbrev := []byte{
		1, 0x11, 1, 0x03, 0x0e, 0x0b, 0x0a, 0, 0,
		2, 0x24, 0, 0x03, 0x30, 0, 0,
		3, 0x34, 0, 0x49, 0x16, 0, 0,
		0,
	}
	str := []byte("cu\x00unterminated")
	cases := []struct {
		name    string
		info    []byte
		section string
		off     uint64
		units   bool // the error comes from Units
	}{
		{"unit length past the end", []byte{0xff, 0, 0, 0, 4, 0}, ".debug_info", 0, true},
		{"reserved unit length", []byte{0xf5, 0xff, 0xff, 0xff, 4, 0}, ".debug_info", 0, true},
		{"DWARF64 length past the end", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x80}, ".debug_info", 0, true},
		{"version 6", []byte{7, 0, 0, 0, 6, 0, 0, 0, 0, 0, 8}, ".debug_info", 4, true},
		{"version 1", []byte{7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 8}, ".debug_info", 4, true},
		{"address size 3", []byte{7, 0, 0, 0, 4, 0, 0, 0, 0, 0, 3}, ".debug_info", 0, true},
		{"abbrev offset past the end", []byte{7, 0, 0, 0, 4, 0, 0xff, 0, 0, 0, 8}, ".debug_info", 0, true},
		{"header truncated", []byte{3, 0, 0, 0, 4, 0, 0}, ".debug_info", 6, true},
		{"unknown unit type", []byte{8, 0, 0, 0, 5, 0, 9, 8, 0, 0, 0, 0}, ".debug_info", 0, true},
		{"strp past .debug_str", hostileUnit([]byte{1, 0xff, 0, 0, 0, 1, 0}), ".debug_info", 12, false},
		{"unterminated string", hostileUnit([]byte{1, 3, 0, 0, 0, 1, 0}), ".debug_info", 12, false},
		{"block past the unit", hostileUnit([]byte{1, 0, 0, 0, 0, 200, 1}), ".debug_info", 16, false},
		{"undefined abbreviation", hostileUnit([]byte{1, 0, 0, 0, 0, 0, 9}), ".debug_info", 17, false},
		{"unknown form", hostileUnit([]byte{1, 0, 0, 0, 0, 0, 2, 0}), ".debug_info", 18, false},
		{"indirect to indirect", hostileUnit([]byte{1, 0, 0, 0, 0, 0, 3, 0x16, 0x16}), ".debug_info", 18, false},
		{"truncated LEB code", hostileUnit([]byte{1, 0, 0, 0, 0, 0, 0x83}), ".debug_info", 17, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mustNew(t, Sections{Info: c.info, Abbrev: abbrev, Str: str, ByteOrder: binary.LittleEndian, File: "hostile.o"})
			units, err := d.Units()
			if !c.units {
				if err != nil {
					t.Fatal(err)
				}
				_, err = walkAll(t, d)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v, want a DecodeError", err)
			}
			if de.File != "hostile.o" || de.Section != c.section || de.Offset != c.off || de.Unit != 0 {
				t.Errorf("got %v (section %s offset %d unit %d), want %s+%d in unit 0", de, de.Section, de.Offset, de.Unit, c.section, c.off)
			}
			if c.units && len(units) != 0 {
				t.Errorf("Units returned %d units with the error", len(units))
			}
		})
	}
}

// TestHostileAbbrev checks malformed abbreviation tables.
func TestHostileAbbrev(t *testing.T) {
	info := hostileUnit([]byte{1, 0})
	cases := []struct {
		name   string
		abbrev []byte
	}{
		{"truncated", []byte{1, 0x11}},
		{"bad children flag", []byte{1, 0x11, 7, 0, 0, 0}},
		{"attribute list unterminated", []byte{1, 0x11, 0, 0x03, 0x08}},
		{"duplicate code", []byte{1, 0x11, 0, 0, 0, 1, 0x24, 0, 0, 0, 0}},
		{"huge form", []byte{1, 0x11, 0, 0x03, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0}},
		{"huge code", []byte{0xff, 0xff, 0xff, 0xff, 0x7f, 0x11, 0, 0, 0, 0}},
		// found by FuzzEncodeOutputValid: a Reader with Keep indexed its
		// attribute set past its end
		{"attribute past DW_AT_hi_user", []byte{1, 0x11, 0, 0x80, 0x80, 0x01, 0x0b, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mustNew(t, Sections{Info: info, Abbrev: c.abbrev, ByteOrder: binary.LittleEndian, File: "a.o"})
			units, err := d.Units()
			if err != nil {
				t.Fatal(err)
			}
			err = d.NewReader().Seek(&units[0])
			var de *DecodeError
			if !errors.As(err, &de) || de.Unit != 0 {
				t.Fatalf("Seek error %v, want a DecodeError in unit 0", err)
			}
		})
	}
	// A sparse code (beyond the dense index) still decodes.
	d := mustNew(t, Sections{Info: hostileUnit([]byte{0xe8, 0x07, 0}), Abbrev: []byte{0xe8, 0x07, 0x11, 0, 0, 0, 0}, ByteOrder: binary.LittleEndian})
	units, _ := d.Units()
	r := d.NewReader()
	var e Entry
	if err := r.Seek(&units[0]); err != nil || !r.Next(&e) || e.Tag != TagCompileUnit {
		t.Fatalf("sparse code 1000: %v %+v", err, e)
	}
}

// TestHostileLocLists checks malformed location lists.
func TestHostileLocLists(t *testing.T) {
	u5 := &Unit{Index: 2, Version: 5, AddrSize: 8}
	u4 := &Unit{Index: 3, Version: 4, AddrSize: 8}
	cases := []struct {
		name string
		u    *Unit
		s    Sections
		off  uint64
	}{
		{"v5 unknown kind", u5, Sections{LocLists: []byte{0x42}}, 0},
		{"v5 expression past the end", u5, Sections{LocLists: []byte{lleOffsetPair, 0, 4, 9, 0x55}}, 4},
		{"v5 no end", u5, Sections{LocLists: []byte{lleOffsetPair, 0, 4, 1, 0x55}}, 5},
		{"v5 addrx without .debug_addr", u5, Sections{LocLists: []byte{lleStartxLength, 0, 4, 1, 0x55, 0}}, 0},
		{"v5 offset past the end", u5, Sections{LocLists: []byte{0}}, 7},
		{"v4 truncated pair", u4, Sections{Loc: []byte{1, 0, 0, 0, 0, 0, 0, 0, 2}}, 8},
		{"v4 expression past the end", u4, Sections{Loc: append(make([]byte, 16), 0xff, 0)}, 18},
		{"v4 missing section", u4, Sections{}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.ByteOrder = binary.LittleEndian
			c.s.Info, c.s.Abbrev = []byte{}, []byte{}
			d := mustNew(t, c.s)
			err := d.LocList(c.u, c.off, func(LocEntry) bool { return true })
			var de *DecodeError
			if !errors.As(err, &de) || de.Unit != c.u.Index {
				t.Fatalf("error %v, want a DecodeError in unit %d", err, c.u.Index)
			}
		})
	}
	// DWARF 4 base address selection and a default entry in DWARF 5.
	loc := []byte{}
	le := binary.LittleEndian
	loc = le.AppendUint64(loc, ^uint64(0))
	loc = le.AppendUint64(loc, 0x1000)
	loc = le.AppendUint64(loc, 0x10)
	loc = le.AppendUint64(loc, 0x20)
	loc = append(loc, 1, 0, 0x50)
	loc = le.AppendUint64(loc, 0x30)
	loc = le.AppendUint64(loc, 0x40)
	loc = append(loc, 0, 0) // empty expression
	loc = append(loc, make([]byte, 16)...)
	d := mustNew(t, Sections{Loc: loc, ByteOrder: le})
	var got []LocEntry
	if err := d.LocList(&Unit{Version: 4, AddrSize: 8, LowPC: 0x500}, 0, func(e LocEntry) bool { got = append(got, e); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Low != 0x1010 || got[0].High != 0x1020 || len(got[0].Expr) != 1 || got[1].Low != 0x1030 || len(got[1].Expr) != 0 {
		t.Errorf("v4 entries %+v", got)
	}
	ll := []byte{lleDefaultLocation, 1, 0x51, lleBaseAddress}
	ll = le.AppendUint64(ll, 0x2000)
	ll = append(ll, lleOffsetPair, 0x10, 0x20, 0, lleStartLength)
	ll = le.AppendUint64(ll, 0x3000)
	ll = append(ll, 0x08, 1, 0x52, lleStartEnd)
	ll = le.AppendUint64(ll, 0x4000)
	ll = le.AppendUint64(ll, 0x4008)
	ll = append(ll, 1, 0x53, lleGNUViewPair, 1, 2, lleEndOfList)
	d = mustNew(t, Sections{LocLists: ll, ByteOrder: le})
	got = nil
	if err := d.LocList(&Unit{Version: 5, AddrSize: 8}, 0, func(e LocEntry) bool { got = append(got, e); return true }); err != nil {
		t.Fatal(err)
	}
	want := []LocEntry{{Default: true, Expr: []byte{0x51}}, {Low: 0x2010, High: 0x2020, Expr: []byte{}}, {Low: 0x3000, High: 0x3008, Expr: []byte{0x52}}, {Low: 0x4000, High: 0x4008, Expr: []byte{0x53}}}
	if len(got) != len(want) {
		t.Fatalf("v5 entries %+v", got)
	}
	for i := range got {
		if got[i].Low != want[i].Low || got[i].High != want[i].High || got[i].Default != want[i].Default || string(got[i].Expr) != string(want[i].Expr) {
			t.Errorf("v5 entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
