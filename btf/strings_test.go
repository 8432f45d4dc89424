package btf

import (
	"testing"
	"unsafe"
)

func TestStringsAdd(t *testing.T) {
	s := NewStrings()
	if s.Add("") != 0 || s.String(0) != "" || s.Size() != 1 {
		t.Fatalf("empty table: Add(\"\")=%d, String(0)=%q, Size=%d", s.Add(""), s.String(0), s.Size())
	}
	a, b := s.Add("int"), s.Add("long")
	if a != 1 || b != 5 || s.Add("int") != a || s.Size() != 10 {
		t.Fatalf("offsets int=%d long=%d, again=%d, size %d; want 1, 5, 1, 10", a, b, s.Add("int"), s.Size())
	}
	if s.String(a) != "int" || s.String(b) != "long" || s.String(a+1) != "nt" || s.String(100) != "" {
		t.Errorf("String: %q %q %q %q", s.String(a), s.String(b), s.String(a+1), s.String(100))
	}
	if off, ok := s.Find("long"); !ok || off != b {
		t.Errorf("Find(long) = %d, %v", off, ok)
	}
	if _, ok := s.Find("short"); ok {
		t.Errorf("Find(short) found a string never added")
	}
}

// TestStringsAddCopies checks that Add keeps its own copy of the bytes, so
// callers may pass strings aliasing memory they later reuse.
func TestStringsAddCopies(t *testing.T) {
	buf := []byte("task_struct")
	s := NewStrings()
	off := s.Add(string(buf))  // an ordinary copy...
	alias := unsafeString(buf) // ...and a zero-copy view
	off2 := s.Add(alias[:4])
	copy(buf, "XXXXXXXXXXX")
	if s.String(off) != "task_struct" || s.String(off2) != "task" {
		t.Fatalf("stored strings changed with the caller's buffer: %q %q", s.String(off), s.String(off2))
	}
	if got, _ := s.Find("task"); got != off2 {
		t.Errorf("index lost \"task\" after the caller's buffer changed")
	}
}

func TestSplitStrings(t *testing.T) {
	base := NewStrings()
	intOff := base.Add("int")
	split := NewSplitStrings(base)
	if split.Size() != base.Size() || split.Len() != 0 {
		t.Fatalf("empty split table: Size %d (base %d), Len %d", split.Size(), base.Size(), split.Len())
	}
	if got := split.Add("int"); got != intOff {
		t.Errorf("Add of a base string gave %d, want the base's %d", got, intOff)
	}
	own := split.Add("ext4_inode")
	if own != uint32(base.Size()) || split.String(own) != "ext4_inode" || split.String(intOff) != "int" {
		t.Errorf("own string at %d (want %d) = %q; base string %q", own, base.Size(), split.String(own), split.String(intOff))
	}
	if split.Len() != len("ext4_inode")+1 {
		t.Errorf("own section holds %d bytes", split.Len())
	}
}

func TestParsedStringsIndexFirstOccurrence(t *testing.T) {
	s, err := parseStrings([]byte("\x00a\x00b\x00a\x00"), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if off, ok := s.Find("a"); !ok || off != 1 {
		t.Errorf("Find(a) = %d, %v; want the first occurrence, 1", off, ok)
	}
	if s.deduped {
		t.Errorf("a parsed table with duplicates counts as deduplicated")
	}
	if got := s.Add("c"); got != 7 || s.String(7) != "c" {
		t.Errorf("Add(c) = %d", got)
	}
}

// unsafeString views b as a string without copying, as callers holding
// mapped DWARF do.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// TestStrIndexDamaged: lookups in an index read from a prepared base's
// file that is damaged (every slot used; offsets past the strings or
// before them; a tag that matches with an offset at the last byte) end,
// and miss, instead of looping or reading out of range.
func TestStrIndexDamaged(t *testing.T) {
	data := []byte("\x00int\x00long\x00")
	for _, fill := range []func(h uint64, i int) uint64{
		func(h uint64, i int) uint64 { return uint64(i+1)<<32 | 3 },         // all used, other tags
		func(h uint64, i int) uint64 { return h>>32<<32 | uint64(1<<32-1) }, // the tag, offset 2^32-2
		func(h uint64, i int) uint64 { return h>>32<<32 | uint64(len(data)) },
		func(h uint64, i int) uint64 { return h>>32<<32 | uint64(len(data)-1) },
	} {
		for _, str := range []string{"absent", "int", "", "l"} {
			h := stableHash(str)
			s := &Strings{data: data, indexed: true, index: strIndex{stable: true, slots: make([]uint64, 8), n: 2}}
			for i := range s.index.slots {
				s.index.slots[i] = fill(h, i)
			}
			if str == "" {
				continue // Find answers "" without the index
			}
			if off, ok := s.Find(str); ok {
				t.Errorf("%q found at %d in a damaged index", str, off)
			}
		}
	}
	// A split table's index whose offset is below its start misses too.
	base := NewStrings()
	split := NewSplitStrings(base)
	split.Add("x")
	split.index.stable = true
	for i := range split.index.slots {
		split.index.slots[i] = stableHash("x")>>32<<32 | 1 // offset 0, below the start
	}
	if _, ok := split.Find("x"); ok {
		t.Error("x found at an offset below the split table's start")
	}
}
