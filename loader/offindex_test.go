package loader

import "testing"

func TestOffsetIndex(t *testing.T) {
	var x offsetIndex
	for _, sorted := range []bool{true, false} {
		x.begin(1000, 200)
		offs := []uint64{1011, 1012, 1013, 1040, 1047, 1048, 1199}
		if !sorted {
			offs = []uint64{1048, 1011, 1199, 1013, 1040, 1012, 1047}
		}
		for _, off := range offs {
			x.record(off, int32(off-900))
		}
		x.record(999, 1)  // before the unit: left out
		x.record(1200, 1) // at its end: left out
		x.seal()
		for off := uint64(990); off < 1210; off++ {
			want := int32(0)
			for _, o := range offs {
				if o == off {
					want = int32(off - 900)
				}
			}
			if got := x.get(off); got != want {
				t.Errorf("sorted=%v: get(%d) = %d, want %d", sorted, off, got, want)
			}
		}
	}
	x.begin(0, 64)
	x.record(3, 7)
	if got := x.get(3); got != 0 {
		t.Errorf("get before seal = %d, want 0", got)
	}
}
