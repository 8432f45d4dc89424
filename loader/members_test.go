package loader

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// TestWalkMembersOutOfRun: the walk keeps a struct's members together and
// in DIE order when clang writes the types defined inside it between them
// (nested.cc), leaves out a static data member, and does so again when the
// same Walker and TypeTable walk another object in between.
func TestWalkMembersOutOfRun(t *testing.T) {
	want := []string{
		"struct withstatic: a int @0, b int @32",
		"struct inner: x int @0, y char @32",
		"struct (anon): s1 short @0, s2 short @16",
		"union (anon): l long @0, pair struct (anon) @0",
		"struct outer: a int @0, in struct inner @32, b int @96:3, c int @128, u union (anon) @192",
	}
	open := func(path string) *Input {
		in, err := Open(path)
		if err != nil {
			t.Fatalf("fixture %s (it is committed): %v", path, err)
		}
		t.Cleanup(func() { in.Close() })
		return in
	}
	nested := open("../testdata/fixtures/nested.clang19-dwarf4.o")
	plain := open("../testdata/fixtures/types.gcc-dwarf5.o")
	w := NewWalker(nested.DWARF, nested.ELF.ByteOrder, WalkOptions{Arch: ArchFor(nested.ELF.Machine)})
	wPlain := NewWalker(plain.DWARF, plain.ELF.ByteOrder, WalkOptions{Arch: ArchFor(plain.ELF.Machine)})
	var tab TypeTable
	for round := 0; round < 2; round++ {
		if err := w.Walk(&nested.Units[0], &tab); err != nil {
			t.Fatal(err)
		}
		if !w.scattered || len(w.memStatic) == 0 {
			t.Fatalf("round %d: the fixture no longer has members out of their run and a static one", round)
		}
		if got := structs(&tab); !slices.Equal(got, want) {
			t.Errorf("round %d: members\n%s\nwant\n%s", round, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// The members of the table are those of its structs, each once.
		n := 0
		for _, s := range memberCounts(&tab) {
			n += s
		}
		if n != len(tab.Members) {
			t.Errorf("round %d: the structs have %d members, the table %d", round, n, len(tab.Members))
		}
		if err := wPlain.Walk(&plain.Units[0], &tab); err != nil {
			t.Fatal(err)
		}
	}
}

// memberCounts returns the member counts of tab's structs and unions.
func memberCounts(tab *TypeTable) []int {
	var n []int
	for id := 1; id < len(tab.Entries); id++ {
		switch en := &tab.Entries[id]; en.Tag {
		case dwarf.TagStructureType, dwarf.TagUnionType:
			n = append(n, int(en.Count))
		}
	}
	return n
}

// structs renders tab's structs and unions in table order: each member's
// name, type, bit offset and bitfield size.
func structs(tab *TypeTable) []string {
	var out []string
	for id := 1; id < len(tab.Entries); id++ {
		en := &tab.Entries[id]
		if en.Tag != dwarf.TagStructureType && en.Tag != dwarf.TagUnionType {
			continue
		}
		var ms []string
		for _, m := range tab.Members[en.First : en.First+en.Count] {
			s := fmt.Sprintf("%s %s @%d", m.Name, tab.TypeName(m.Type), m.BitOffset)
			if m.BitfieldSize != 0 {
				s += fmt.Sprintf(":%d", m.BitfieldSize)
			}
			ms = append(ms, s)
		}
		out = append(out, fmt.Sprintf("%s: %s", tab.TypeName(TypeID(id)), strings.Join(ms, ", ")))
	}
	return out
}
