package encode

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/btfgate/btfgate/features"
)

// TestFoldChangesNothing: folding the spliced types (which the encode does
// for kernel-sized inputs only) changes nothing an encode gives, on every
// committed fixture that encodes (gcc and clang, DWARF 4 and 5, objects and
// linked programs of several units, LTO, dwz): the BTF's bytes, the
// decisions, and every function's facts and instances, which the facts
// phase builds from folded types (prototypes, type names).
func TestFoldChangesNothing(t *testing.T) {
	var objs []string
	for _, pattern := range []string{"*.o", "*/*.o", "*/*.exe"} {
		m, err := filepath.Glob(filepath.Join(fixtureDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, m...)
	}
	if len(objs) < 30 {
		t.Fatalf("%d fixture objects in %s, want the committed ones", len(objs), fixtureDir)
	}
	encoded, folded := 0, 0
	for _, obj := range objs {
		name, _ := filepath.Rel(fixtureDir, obj)
		t.Run(name, func(t *testing.T) {
			opts := Options{Features: features.Default(), Jobs: 2, Detail: true}
			if _, err := Encode(obj, opts); err != nil {
				t.Skipf("a fixture that does not encode: %v", err)
			}
			encoded++
			want, wantRaw := encodeBytes(t, obj, opts, binary.LittleEndian)
			if want.FoldedTypes != 0 {
				t.Errorf("an encode of %d bytes folded %d types unasked", len(wantRaw), want.FoldedTypes)
			}
			opts.foldAlways = true
			got, gotRaw := encodeBytes(t, obj, opts, binary.LittleEndian)
			if got.FoldedTypes > 0 {
				folded++
			}
			sameBytes(t, gotRaw, wantRaw, nil, "the encode without folding")
			sameDecisions(t, got, want)
			sameFacts(t, got, want, "the encode without folding")
		})
	}
	// The programs of several units repeat types across them; an object
	// of one unit has nothing to fold unless it declares a struct it
	// defines.
	t.Logf("%d of %d fixtures that encode folded a type", folded, encoded)
	if folded < encoded/3 {
		t.Errorf("%d of %d fixtures folded a type: the fold is hardly tested", folded, encoded)
	}
}
