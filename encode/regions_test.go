package encode

import (
	"slices"
	"testing"
)

// TestCorpusTextRegions: the corpus kernel's functions between the
// linker's __NAME_text_start and __NAME_text_end markers (nm) carry the
// region's name.
func TestCorpusTextRegions(t *testing.T) {
	run := encodeCorpusDefault(t)
	want := map[string][]string{
		"__ct_user_enter": {"noinstr"}, // ffffffff81a48b60, in [81a43c50, 81a4903c)
		"acpi_idle_enter": {"cpuidle"},
		"__do_softirq":    {"softirqentry"}, // at __softirqentry_text_start
		"clear_bhb_loop":  {"entry"},
		"__schedule":      {"sched"},
		"_raw_spin_lock":  {"lock"},
		"tcp_v4_rcv":      nil,
		"start_kernel":    nil, // .init.text
		"native_save_fl":  {"noinstr"},
		"vfs_read":        nil,
	}
	count := map[string]int{}
	for _, f := range run.res.Functions {
		for _, r := range f.TextRegions {
			count[r]++
		}
		w, ok := want[f.Name]
		if !ok {
			continue
		}
		delete(want, f.Name)
		if !slices.Equal(f.TextRegions, w) {
			t.Errorf("%s: text_regions %v, want %v", f.Name, f.TextRegions, w)
		}
	}
	for name := range want {
		t.Errorf("no function group %s", name)
	}
	t.Logf("functions per region: %v", count)
	// docs/policies.md: 155 groups lie in the noinstr region.
	if count["noinstr"] != 155 {
		t.Errorf("%d functions in the noinstr region, want 155", count["noinstr"])
	}
}
