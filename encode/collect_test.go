package encode

import "testing"

// TestDecodeCollections: a kernel-sized decode starts one collection at
// two fifths and one at seven tenths of its .debug_info, each once, and
// one for a unit that passes both; a module-sized one starts none.
func TestDecodeCollections(t *testing.T) {
	const info = 100 << 20
	c := newDecodeCollections(info)
	n := 0
	c.collect = func() { n++ }
	for _, step := range []struct {
		off  uint64
		want int
	}{{0, 0}, {info * 39 / 100, 0}, {info * 2 / 5, 1}, {info / 2, 1}, {info * 69 / 100, 1}, {info * 7 / 10, 2}, {info, 2}, {info, 2}} {
		c.spliced(step.off)
		if n != step.want {
			t.Fatalf("spliced up to %d of %d: %d collections started, want %d", step.off, info, n, step.want)
		}
	}
	whole := newDecodeCollections(info)
	n = 0
	whole.collect = func() { n++ }
	if whole.spliced(info); n != 1 {
		t.Errorf("one unit spliced up to the end: %d collections started, want 1", n)
	}
	small := newDecodeCollections(collectDuringDecodeFrom - 1)
	small.collect = func() { t.Error("a collection during the decode of an input under collectDuringDecodeFrom") }
	small.spliced(collectDuringDecodeFrom)
}
