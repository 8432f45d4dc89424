package loader

import (
	"testing"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// packedTable walks the one unit of a packed-struct fixture
// (testdata/fixtures/packed) and returns its type table and a function
// finding a struct by name.
func packedTable(t *testing.T, obj string) (*TypeTable, func(string) TypeID) {
	t.Helper()
	in, err := Open("../testdata/fixtures/packed/" + obj)
	if err != nil {
		t.Fatalf("fixture %s (it is committed): %v", obj, err)
	}
	t.Cleanup(func() { in.Close() })
	if len(in.Units) != 1 {
		t.Fatalf("%s has %d units, want 1", obj, len(in.Units))
	}
	w := NewWalker(in.DWARF, in.ELF.ByteOrder, WalkOptions{Arch: ArchFor(in.ELF.Machine)})
	tab := &TypeTable{}
	if err := w.Walk(&in.Units[0], tab); err != nil {
		t.Fatal(err)
	}
	find := func(name string) TypeID {
		t.Helper()
		for id := 1; id < len(tab.Entries); id++ {
			if en := &tab.Entries[id]; en.Tag == dwarf.TagStructureType && en.Name == name {
				return TypeID(id)
			}
		}
		t.Fatalf("%s: no struct %s", obj, name)
		return 0
	}
	return tab, find
}

// TestPackedInference: pahole's answers for the fixture's structs on i386
// and x86_64 (those of expected/*.skips, here per struct), whatever the
// compiler and DWARF version: bitfields count at their storage unit, an
// 8-byte member at a 4-byte offset is unnatural.
func TestPackedInference(t *testing.T) {
	for _, obj := range []string{
		"packed.gcc-i386-dwarf4.o", "packed.gcc-i386-dwarf5.o", "packed.clang-i386-dwarf4.o", "packed.clang-i386-dwarf5.o",
		"packed.gcc-x86_64-dwarf4.o", "packed.gcc-x86_64-dwarf5.o", "packed.clang-x86_64-dwarf4.o", "packed.clang-x86_64-dwarf5.o",
	} {
		tab, find := packedTable(t, obj)
		i386 := tab.Unit.AddrSize == 4
		want := map[string]bool{
			"spec": false, "tailbf": false, "pad": false, "ebf": false, "ptrs": false,
			"one8": false, "inner2": false, "inner3": false, "has_hole": false, "outer2": false,
			"pk": true, "holds_pk": true,
			"ts": i386, "at4": i386, "bf64": i386, "arr": i386, "withunion": i386, "nest": i386,
		}
		for name, packed := range want {
			// Each on its own: a fresh inference, so no other struct decides.
			if got := NewPackedInference(tab).Packed(find(name)); got != packed {
				t.Errorf("%s: struct %s packed %v, pahole says %v", obj, name, got, packed)
			}
		}
	}
}

// TestPackedInferenceOrder: deciding a struct with holes decides the
// struct members it holds at unnatural offsets packed, also when they were
// decided not packed before; a struct's first answer is otherwise final.
func TestPackedInferenceOrder(t *testing.T) {
	for _, c := range []struct {
		obj           string
		inner, holder string
		marked        bool
	}{
		{"packed.gcc-i386-dwarf5.o", "one8", "has_hole", true},
		{"packed.gcc-x86_64-dwarf5.o", "one8", "has_hole", false}, // one8 at offset 8
		{"packed.clang-x86_64-dwarf4.o", "inner2", "outer2", true},
		{"packed.clang-i386-dwarf4.o", "inner3", "outer3", true},
	} {
		tab, find := packedTable(t, c.obj)
		inner, holder := find(c.inner), find(c.holder)
		p := NewPackedInference(tab)
		if p.Packed(inner) {
			t.Errorf("%s: %s alone is packed", c.obj, c.inner)
		}
		if p.Packed(holder) {
			t.Errorf("%s: %s (with a hole) is packed", c.obj, c.holder)
		}
		if got := p.Packed(inner); got != c.marked {
			t.Errorf("%s: %s after %s: packed %v, want %v", c.obj, c.inner, c.holder, got, c.marked)
		}
		// Asked first, the holder decides the inner struct before it is.
		p = NewPackedInference(tab)
		p.Packed(holder)
		if got := p.Packed(inner); got != c.marked {
			t.Errorf("%s: %s after %s in a fresh inference: packed %v, want %v", c.obj, c.inner, c.holder, got, c.marked)
		}
	}
}

// TestPackedInferenceLayout: bitfield byte offsets are pahole's storage
// units, from DW_AT_data_bit_offset (DWARF 5) and from
// DW_AT_data_member_location with DW_AT_bit_offset (DWARF 4) alike.
func TestPackedInferenceLayout(t *testing.T) {
	for _, c := range []struct {
		obj, name string
		offsets   []uint32
	}{
		{"packed.gcc-i386-dwarf4.o", "spec", []uint32{0, 0, 4, 4, 4}},
		{"packed.gcc-i386-dwarf5.o", "spec", []uint32{0, 0, 4, 4, 4}},
		{"packed.clang-i386-dwarf4.o", "spec", []uint32{0, 0, 4, 4, 4}},
		{"packed.gcc-i386-dwarf5.o", "bf64", []uint32{0, 0, 8}},
		{"packed.gcc-i386-dwarf4.o", "bf64", []uint32{0, 0, 8}},
		{"packed.clang-x86_64-dwarf5.o", "bf64", []uint32{0, 8, 8}},
		{"packed.gcc-i386-dwarf5.o", "at4", []uint32{0, 4}},
	} {
		tab, find := packedTable(t, c.obj)
		p := NewPackedInference(tab)
		en := &tab.Entries[find(c.name)]
		ms := tab.Members[en.First : en.First+en.Count]
		if len(ms) != len(c.offsets) {
			t.Fatalf("%s: struct %s has %d members, want %d", c.obj, c.name, len(ms), len(c.offsets))
		}
		for i := range ms {
			if got := p.layout(&ms[i]).byteOffset; got != c.offsets[i] {
				t.Errorf("%s: %s.%s at byte %d, pahole's %d", c.obj, c.name, ms[i].Name, got, c.offsets[i])
			}
		}
	}
}
