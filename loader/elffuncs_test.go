package loader

import (
	"slices"
	"testing"

	"github.com/btfgate/btfgate/loader/elffile"
)

// TestTextRegions: __NAME_text_start/__NAME_text_end pairs become regions;
// a function lies in every region one of its symbols is in, nested ones
// included; unpaired markers, markers in two sections or reversed ones
// make no region.
func TestTextRegions(t *testing.T) {
	const global, notype, fn = 1 << 4, elffile.STT_NOTYPE, elffile.STT_FUNC
	sym := func(name string, value uint64, typ uint8, section uint32) elffile.Symbol {
		return elffile.Symbol{Name: name, Value: value, Info: global | typ, Section: section}
	}
	syms := []elffile.Symbol{
		sym("__entry_text_start", 0x100, notype, 1),
		sym("__irqentry_text_start", 0x180, notype, 1),
		sym("__irqentry_text_end", 0x1c0, notype, 1),
		sym("__entry_text_end", 0x200, notype, 1),
		sym("__noinstr_text_start", 0x300, notype, 1),
		sym("__noinstr_text_end", 0x400, notype, 1),
		sym("__kprobes_text_start", 0x500, notype, 1), // empty
		sym("__kprobes_text_end", 0x500, notype, 1),
		sym("__lonely_text_start", 0x0, notype, 1), // no end
		sym("__split_text_start", 0x0, notype, 1),  // end in another section
		sym("__split_text_end", 0x1000, notype, 2),
		sym("__back_text_start", 0x900, notype, 1), // end before start
		sym("__back_text_end", 0x800, notype, 1),
		sym("_text_start", 0x0, notype, 1),      // no name
		sym("__sched_text_start", 0x600, fn, 1), // a marker of any type
		sym("sched_fn", 0x680, fn, 1),
		sym("__sched_text_end", 0x700, notype, 1),
		sym("entry_fn", 0x100, fn, 1),
		sym("irq_fn", 0x190, fn, 1),
		sym("irq_fn2", 0x1c0, fn, 1), // the end is outside
		sym("noinstr_fn", 0x3ff, fn, 1),
		sym("clone", 0x10, fn, 1),
		sym("clone.isra.0", 0x320, fn, 1),
		sym("plain", 0x400, fn, 1),
		sym("other_section", 0x350, fn, 3),
	}
	ef := CollectElfFuncs(syms)
	var names []string
	for _, r := range ef.Regions {
		names = append(names, r.Name)
	}
	if want := []string{"entry", "irqentry", "noinstr", "kprobes", "sched"}; !slices.Equal(names, want) {
		t.Errorf("regions %v, want %v", names, want)
	}
	for name, want := range map[string][]string{
		"entry_fn":      {"entry"},
		"irq_fn":        {"entry", "irqentry"},
		"irq_fn2":       {"entry"},
		"noinstr_fn":    {"noinstr"},
		"clone":         {"noinstr"},
		"plain":         nil,
		"sched_fn":      {"sched"},
		"other_section": nil,
	} {
		i := ef.Find(name)
		if i < 0 {
			t.Fatalf("no function %s", name)
		}
		if got := ef.RegionsOf(&ef.Funcs[i]); !slices.Equal(got, want) {
			t.Errorf("%s: regions %v, want %v", name, got, want)
		}
	}
	if i := ef.Find("__sched_text_start"); i < 0 {
		t.Error("an STT_FUNC marker is no longer a function symbol")
	}
}
