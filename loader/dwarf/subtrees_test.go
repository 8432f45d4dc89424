package dwarf

import (
	"cmp"
	"slices"
	"testing"
)

// TestCorpusSubtreeShare: on the corpus kernel, skipping each top-level
// DIE's children (SkipChildren, through DW_AT_sibling where the producer
// wrote it) lands where decoding every DIE of the subtree does, unit by
// unit; and it logs (go test -v) how .debug_info divides among the
// top-level DIEs by tag, subtree bytes included, the measure of what a
// walk that skips whole subtrees could leave unread
// (docs/performance.md).
func TestCorpusSubtreeShare(t *testing.T) {
	s, d, units := vmlinuxUnits(t)
	type share struct {
		tag         Tag
		dies, bytes int
	}
	byTag := map[Tag]*share{}
	full, skip := d.NewReader(), d.NewReader()
	var e, f Entry
	total := 0
	for i := range units {
		u := &units[i]
		if err := full.Seek(u); err != nil {
			t.Fatal(err)
		}
		if err := skip.Seek(u); err != nil {
			t.Fatal(err)
		}
		if !full.Next(&e) || !skip.Next(&f) || !e.Children {
			continue
		}
		for {
			start := full.Offset()
			if start != skip.Offset() {
				t.Fatalf("unit %d: the decoding walk is at %#x, the skipping one at %#x", i, start, skip.Offset())
			}
			if !full.Next(&e) {
				break
			}
			if !skip.Next(&f) {
				t.Fatalf("unit %d at %#x: the skipping walk ended: %v", i, start, skip.Err())
			}
			if e.Tag == 0 { // the unit's end
				break
			}
			sh := byTag[e.Tag]
			if sh == nil {
				sh = &share{tag: e.Tag}
				byTag[e.Tag] = sh
			}
			sh.dies++
			if e.Children {
				for depth := 1; depth > 0 && full.Next(&e); {
					switch {
					case e.Tag == 0:
						depth--
					case e.Children:
						depth++
					}
				}
				skip.SkipChildren()
			}
			sh.bytes += int(full.Offset() - start)
			total += int(full.Offset() - start)
		}
		if err := full.Err(); err != nil {
			t.Fatal(err)
		}
		if err := skip.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if total == 0 || total > len(s.Info) {
		t.Fatalf("top-level subtrees hold %d bytes of .debug_info's %d", total, len(s.Info))
	}
	shares := make([]*share, 0, len(byTag))
	for _, sh := range byTag {
		shares = append(shares, sh)
	}
	slices.SortFunc(shares, func(a, b *share) int { return cmp.Compare(b.bytes, a.bytes) })
	t.Logf("%d units, .debug_info %d bytes, %d in top-level DIEs and their subtrees", len(units), len(s.Info), total)
	for _, sh := range shares {
		t.Logf("  %-28v %9d DIEs %11d bytes %5.1f %%", sh.tag, sh.dies, sh.bytes, 100*float64(sh.bytes)/float64(len(s.Info)))
	}
}
