package encode

import (
	"fmt"
	"testing"

	"github.com/btfgate/btfgate/features"
)

// TestParamLocationFacts holds the location facts of testdata/fixtures/locs.c
// to what llvm-dwarfdump-19 --debug-info prints for each build: every
// register of the location list, the registers inside DW_OP_entry_value,
// whether the first entry starts at DW_AT_low_pc, and the kind at low_pc.
func TestParamLocationFacts(t *testing.T) {
	type want struct {
		regs, entryValue string
		first            bool
		kind             string
	}
	for _, c := range []struct {
		fixture string
		params  map[string]want
	}{
		{"../testdata/fixtures/locs.gcc-dwarf5.o", map[string]want{
			// [lo, +9) DW_OP_reg5; [+9, hi) DW_OP_entry_value(DW_OP_reg5), DW_OP_stack_value
			"locs_use.e": {"[5]", "[5]", true, "register"},
			// [lo, +5) DW_OP_reg5; [+5, hi) DW_OP_reg2
			"locs_entry_value.event": {"[2 5]", "[]", true, "register"},
			// DW_OP_reg4 (one expression)
			"locs_entry_value.flags": {"[4]", "[]", true, "register"},
			"locs_unused.a":          {"[5]", "[5]", true, "register"},
			// the kernel's stpcpy: [lo, lo) DW_OP_reg5; [lo, +6)
			// DW_OP_entry_value(DW_OP_reg5), DW_OP_stack_value; then
			// DW_OP_reg1, DW_OP_reg5, DW_OP_reg1
			"locs_stpcpy.dest": {"[1 5]", "[5]", true, "entry_value"},
			"locs_stpcpy.src":  {"[4]", "[4]", true, "entry_value"},
		}},
		{"../testdata/fixtures/locs.clang-dwarf5.o", map[string]want{
			// [lo, +8) DW_OP_reg5; [+8, +0x2c) DW_OP_reg3; [+0x2c, hi) DW_OP_entry_value(DW_OP_reg5), DW_OP_stack_value
			"locs_entry_value.event": {"[3 5]", "[5]", true, "register"},
			"locs_entry_value.flags": {"[4]", "[4]", true, "register"},
			// no DW_AT_location: clang dropped the unused parameter
			"locs_unused.a": {"[]", "[]", false, "none"},
			"locs_unused.b": {"[4]", "[4]", true, "register"},
			// [lo, +6) DW_OP_reg5; then DW_OP_breg0 RAX+2, DW_OP_stack_value, ...
			"locs_stpcpy.dest": {"[0 5]", "[]", true, "register"},
		}},
	} {
		res, err := Encode(c.fixture, Options{Features: features.Default(), Jobs: 1, Detail: true})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, f := range res.Functions {
			for _, p := range f.Canonical.Params {
				w, ok := c.params[f.Name+"."+p.Name]
				if !ok {
					continue
				}
				seen++
				got := want{fmt.Sprint(p.LocRegs), fmt.Sprint(p.EntryValueRegs), p.FirstRangeAtEntry, p.EntryLoc}
				if p.LocRegs == nil {
					got.regs = "[]"
				}
				if p.EntryValueRegs == nil {
					got.entryValue = "[]"
				}
				if got != w {
					t.Errorf("%s: %s.%s: loc_regs %s entry_value_regs %s first_range_at_entry %v entry_loc %s, want %+v",
						c.fixture, f.Name, p.Name, got.regs, got.entryValue, got.first, got.kind, w)
				}
			}
		}
		if seen != len(c.params) {
			t.Errorf("%s: %d of the %d parameters found", c.fixture, seen, len(c.params))
		}
	}
}
