package btf

import (
	"strings"
	"testing"
)

// TestAppendRenumbers appends two units the way the converter does: local
// ids shift, an id past the unit's last is external, strings are
// re-interned in the unit's table order.
func TestAppendRenumbers(t *testing.T) {
	all := NewTypes(NewStrings())
	all.Strings.Add("long") // something already there

	cu1 := NewTypes(NewStrings())
	cu1.AddInt(cu1.Strings.Add("int"), 4, IntSigned, 0, 32)            // 1
	cu1.AddStruct(false, cu1.Strings.Add("s"), 8, []Member{{Type: 3}}) // 2
	cu1.AddRef(KindPtr, 0, 2)                                          // 3
	if err := all.Append(cu1, nil); err != nil {
		t.Fatal(err)
	}

	cu2 := NewTypes(NewStrings())
	cu2.Strings.Add("unused")                            // kept, as pahole keeps every string
	cu2.AddArray(2, 3, 4)                                // 1: ARRAY of 4 local-2, indexed by external 3
	cu2.AddRef(KindTypedef, cu2.Strings.Add("long"), 0)  // 2
	if err := all.Append(cu2, []TypeID{1}); err != nil { // external 3 -> all's int
		t.Fatal(err)
	}

	want := `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] STRUCT 's' size=8 { :3@0 }
[3] PTR '' ->2
[4] ARRAY '' 5[4] idx=1
[5] TYPEDEF 'long' ->0`
	if got := strings.TrimSpace(formatTypes(all)); got != strings.TrimSpace(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var strs []string
	all.Strings.forEach(func(_ uint32, s string) { strs = append(strs, s) })
	if got := strings.Join(strs, ","); got != ",long,int,s,unused" {
		t.Errorf("strings in order %q", got)
	}
}

// TestAppendSharedStrings appends a fragment naming its types in the
// destination's own table: offsets stay.
func TestAppendSharedStrings(t *testing.T) {
	all := NewTypes(NewStrings())
	frag := NewTypes(all.Strings)
	frag.AddInt(all.Strings.Add("char"), 1, IntSigned, 0, 8)
	if err := all.Append(frag, nil); err != nil {
		t.Fatal(err)
	}
	if err := all.Append(frag, nil); err != nil {
		t.Fatal(err)
	}
	if all.Len() != 2 || all.Name(2) != "char" || all.Strings.Size() != 6 {
		t.Errorf("Len %d, Name(2) %q, strings %d bytes", all.Len(), all.Name(2), all.Strings.Size())
	}
}

// TestAppendErrorLeavesTypes checks that a bad reference fails the append
// with the fragment's type id named, and leaves the destination as it was.
func TestAppendErrorLeavesTypes(t *testing.T) {
	all := NewTypes(NewStrings())
	all.AddInt(all.Strings.Add("int"), 4, IntSigned, 0, 32)
	frag := NewTypes(NewStrings())
	frag.AddRef(KindPtr, 0, 0)
	frag.AddRef(KindPtr, 0, 7) // past the fragment, and no externals
	err := all.Append(frag, nil)
	if err == nil || !strings.Contains(err.Error(), "fragment type 2 refers to type 7") {
		t.Fatalf("Append: %v", err)
	}
	if all.Len() != 1 || len(all.words) != 4 {
		t.Errorf("destination changed: %d types, %d words", all.Len(), len(all.words))
	}
}

// TestAppendIntoSplit appends a non-split fragment to split types: ids
// continue after the base and strings the base holds keep base offsets.
func TestAppendIntoSplit(t *testing.T) {
	base := NewTypes(NewStrings())
	base.AddInt(base.Strings.Add("int"), 4, IntSigned, 0, 32)
	mod := NewSplitTypes(base)
	frag := NewTypes(NewStrings())
	frag.AddInt(frag.Strings.Add("int"), 4, IntSigned, 0, 32)
	frag.AddRef(KindPtr, frag.Strings.Add("p"), 1)
	if err := mod.Append(frag, nil); err != nil {
		t.Fatal(err)
	}
	if mod.FirstID() != 2 || mod.Ref(3) != 2 || mod.NameOff(2) != 1 || mod.Name(3) != "p" || mod.NameOff(3) != 5 {
		t.Errorf("FirstID %d, Ref(3) %d, NameOff(2) %d, Name(3) %q at %d", mod.FirstID(), mod.Ref(3), mod.NameOff(2), mod.Name(3), mod.NameOff(3))
	}
}
