package loader

import (
	"testing"

	"github.com/btfgate/btfgate/loader/elffile"
)

// TestLastNameNeverAmbiguous: two static functions of one name at two
// addresses are ambiguous, unless theirs is the last name in sorted order.
func TestLastNameNeverAmbiguous(t *testing.T) {
	const local = 0 << 4
	sym := func(name string, value uint64) elffile.Symbol {
		return elffile.Symbol{Name: name, Value: value, Size: 8, Info: local | elffile.STT_FUNC, Section: 1}
	}
	t1 := CollectElfFuncs([]elffile.Symbol{sym("a_dup", 0x10), sym("a_dup", 0x20), sym("z_dup", 0x30), sym("z_dup", 0x40)})
	for name, want := range map[string]bool{"a_dup": true, "z_dup": false} {
		i := t1.Find(name)
		if i < 0 {
			t.Fatalf("%s not found", name)
		}
		if got := t1.Funcs[i].Ambiguous; got != want {
			t.Errorf("%s: ambiguous %v, want %v", name, got, want)
		}
	}
	// A name after it makes z_dup ambiguous too.
	t2 := CollectElfFuncs([]elffile.Symbol{sym("z_dup", 0x30), sym("z_dup", 0x40), sym("zz", 0x50)})
	if !t2.Funcs[t2.Find("z_dup")].Ambiguous {
		t.Error("z_dup: not ambiguous before another name")
	}
}
