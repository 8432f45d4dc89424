package btf

import "testing"

// fragment returns a CU fragment of an int and a pointer to type ref
// (1: the int; past 2: a reference no splice can map).
func fragment(ref TypeID) *Fragment {
	types := NewTypes(NewStrings())
	types.AddInt(1, 4, IntSigned, 0, 32) // name: Strs[0]
	types.AddRef(KindPtr, 0, ref)
	return &Fragment{Types: types, Tail: NewTypes(NewStrings()), Strs: []string{"int"}, IntID: 1}
}

// TestSplicedTypesValid: types a Splicer adds count as valid (the dedup
// does not check their references again) only when the splice succeeded
// and everything before was valid.
func TestSplicedTypesValid(t *testing.T) {
	dst := NewTypes(NewStrings())
	s := NewSplicer(dst, nil)
	if _, _, err := s.Add(fragment(1)); err != nil {
		t.Fatal(err)
	}
	if dst.valid != 2 || dst.Len() != 2 {
		t.Fatalf("after a good splice: %d of %d types valid, want 2 of 2", dst.valid, dst.Len())
	}
	if _, _, err := s.Add(fragment(7)); err == nil {
		t.Fatal("splicing a pointer to type 7 of a 2-type fragment did not fail")
	}
	if dst.valid != 2 {
		t.Errorf("after a failed splice: %d types valid, want 2", dst.valid)
	}
	if dst.View().valid != dst.valid {
		t.Errorf("a View has %d valid types, its origin %d", dst.View().valid, dst.valid)
	}

	built := NewTypes(NewStrings())
	built.AddRef(KindPtr, 0, 9) // a builder cannot check a forward reference
	s = NewSplicer(built, nil)
	if _, _, err := s.Add(fragment(1)); err != nil {
		t.Fatal(err)
	}
	if built.valid != 0 {
		t.Errorf("splicing after an unchecked type: %d types valid, want 0", built.valid)
	}
	if _, err := Dedup(built); err == nil {
		t.Error("Dedup took a pointer to type 9 of 3")
	}
}
