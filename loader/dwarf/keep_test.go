package dwarf

import (
	"testing"
)

// TestKeep walks units twice, with every attribute and with Keep on a few,
// and checks that the second walk returns exactly the kept attributes of
// the first, with the same values, and visits the same DIEs (skipping
// children through the kept DW_AT_sibling works too).
func TestKeep(t *testing.T) {
	keep := NewAttrSet(AttrType, AttrDataMemberLocation, AttrUpperBound, AttrLocation, AttrConstValue)
	// What Keep adds: DW_AT_sibling and what Seek reads from the root.
	always := NewAttrSet(AttrSibling, AttrStrOffsetsBase, AttrAddrBase, AttrGNUAddrBase, AttrLoclistsBase,
		AttrRnglistsBase, AttrLowPc, AttrProducer, AttrName, AttrLanguage)
	check := func(t *testing.T, d *Data, units []Unit) {
		full, kept := d.NewReader(), d.NewReader()
		kept.Keep(keep)
		var ef, ek Entry
		dies, dropped := 0, 0
		for i := range units {
			if err := full.Seek(&units[i]); err != nil {
				t.Fatal(err)
			}
			if err := kept.Seek(&units[i]); err != nil {
				t.Fatal(err)
			}
			for {
				okf, okk := full.Next(&ef), kept.Next(&ek)
				if okf != okk {
					t.Fatalf("unit %d: full walk ok=%v, kept walk ok=%v (errors %v, %v)", i, okf, okk, full.Err(), kept.Err())
				}
				if !okf {
					break
				}
				dies++
				if ef.Offset != ek.Offset || ef.Tag != ek.Tag || ef.Children != ek.Children {
					t.Fatalf("unit %d: DIE 0x%x %v vs 0x%x %v", i, ef.Offset, ef.Tag, ek.Offset, ek.Tag)
				}
				var want []Field
				for _, f := range ef.Fields {
					if keep.Has(f.Attr) || always.Has(f.Attr) {
						want = append(want, f)
					} else {
						dropped++
					}
				}
				if len(want) != len(ek.Fields) {
					t.Fatalf("DIE 0x%x: kept %d attributes, want %d", ek.Offset, len(ek.Fields), len(want))
				}
				for j, f := range want {
					g := ek.Fields[j]
					if f.Attr != g.Attr || f.Form != g.Form || f.Val != g.Val || string(f.Bytes) != string(g.Bytes) || f.Signed != g.Signed {
						t.Fatalf("DIE 0x%x attribute %d: %+v, want %+v", ek.Offset, j, g, f)
					}
				}
				// Skip the children of every third DIE in both walks.
				if dies%3 == 0 && ef.Children {
					full.SkipChildren()
					kept.SkipChildren()
				}
			}
		}
		if dies < 20 || dropped == 0 {
			t.Fatalf("%d DIEs, %d attributes dropped: the test checks too little", dies, dropped)
		}
	}
	onTestInputs(t, 53, check)
}
