package encode

import (
	"context"
	"encoding/binary"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// trueSigModule selects functions for true signatures from Rego, beside
// the rules file's list (engine.Config.Data "true_signature").
const trueSigModule = `package btfgate.functions

true_signature.ours := {id: {"our tracer wants the clone"} |
	some name in {"kmalloc_array", "__alloc_pages_slowpath", "tcp_v4_rcv"}
	input.functions[id].name == name
}

true_signature.zstd := {id: {"zstd clones"} |
	glob.match("ZSTD_execSequenceEnd*", null, input.functions[id].name)
}
`

// TestCorpusTrueSignaturePerFunction selects a few kernel functions for
// true signatures by a Rego rule and by the rules file's list, with the
// feature off: exactly their clones appear, with the FUNC (and so the
// FUNC_PROTO) content of the reference's all output, the base-name FUNC
// they replace goes, and nothing else differs from the default output.
// tcp_v4_rcv has no clone: selecting it changes nothing.
func TestCorpusTrueSignaturePerFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the corpus kernel")
	}
	path := corpus.Vmlinux(t)
	set := features.Default()
	pol, err := engine.New(context.Background(), engine.Config{
		Features: set,
		Modules:  []engine.Module{{Name: "truesig.rego", Source: trueSigModule}},
		Data:     map[string]any{"true_signature": []any{"___gnet_stats_copy_basic", map[string]any{"name": "modify_irte", "reason": "two drivers"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Encode(path, Options{Features: set, Jobs: 2, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := res.Types.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	wantAdded := []string{"ZSTD_execSequenceEnd.isra.0", "___gnet_stats_copy_basic.isra.0",
		"__alloc_pages_slowpath.constprop.0", "kmalloc_array.constprop.0", "modify_irte.isra.0"}
	wantRemoved := []string{"__alloc_pages_slowpath"} // the default output's FUNC, replaced by its clone

	// Which groups were selected, by which rules.
	selected := map[string][]string{}
	for i, d := range res.Decisions {
		for _, r := range d.TrueSignature {
			selected[res.Functions[i].Name] = append(selected[res.Functions[i].Name], r.Rule+": "+r.Message)
		}
		if f := res.Functions[i]; f.TrueSig != nil && d.TrueSignature == nil {
			t.Errorf("%s has a true signature but no rule selected it", f.Name)
		}
	}
	wantSelected := map[string][]string{
		"___gnet_stats_copy_basic": {"config_true_signature: true signature by configuration (___gnet_stats_copy_basic)"},
		"__alloc_pages_slowpath":   {"ours: our tracer wants the clone"},
		"ZSTD_execSequenceEnd":     {"zstd: zstd clones"},
		"kmalloc_array":            {"ours: our tracer wants the clone"},
		"modify_irte":              {"config_true_signature: two drivers"},
		"tcp_v4_rcv":               {"ours: our tracer wants the clone"},
	}
	for name, want := range wantSelected {
		if got := selected[name]; !slices.Equal(got, want) {
			t.Errorf("%s selected by %q, want %q", name, got, want)
		}
	}
	if len(selected) != len(wantSelected) {
		t.Errorf("%d groups selected, want %d: %v", len(selected), len(wantSelected), selected)
	}

	ours, err := btfdiff.FromBytes("btfgate", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	def, err := btfdiff.Load(corpus.ReferenceFile(t, "amd64.default.btf"), "")
	if err != nil {
		t.Fatal(err)
	}
	all, err := btfdiff.Load(corpus.ReferenceFile(t, "amd64.all.btf"), "")
	if err != nil {
		t.Fatal(err)
	}
	got := btfdiff.Compare(def, ours)    // what the selection changed
	allDiff := btfdiff.Compare(def, all) // what the feature changes

	names := func(ks []btfdiff.KeyDiff, kind string) []string {
		var out []string
		for _, k := range ks {
			if k.Kind.String() == kind {
				out = append(out, k.Name)
			}
		}
		sort.Strings(out)
		return out
	}
	if added := names(got.OnlyB, "FUNC"); !slices.Equal(added, wantAdded) {
		t.Errorf("FUNCs only in ours: %v, want %v", added, wantAdded)
	}
	if removed := names(got.OnlyA, "FUNC"); !slices.Equal(removed, wantRemoved) {
		t.Errorf("FUNCs only in the default output: %v, want %v", removed, wantRemoved)
	}
	// Every key ours has more (or fewer) of than the default output, the
	// all output has more (or fewer) of too: the same FUNCs with the same
	// prototypes, and only FUNCs and FUNC_PROTOs.
	within := func(what string, ks, in []btfdiff.KeyDiff) {
		have := map[string]bool{}
		for _, k := range in {
			have[k.Key] = true
		}
		for _, k := range ks {
			if kind := k.Kind.String(); kind != "FUNC" && kind != "FUNC_PROTO" {
				t.Errorf("%s: a %s differs: %.300s", what, kind, k.Key)
			}
			if !have[k.Key] {
				t.Errorf("%s, but not so in amd64.all.btf: %.300s", what, k.Key)
			}
		}
	}
	within("only in ours", got.OnlyB, allDiff.OnlyB)
	within("only in the default output", got.OnlyA, allDiff.OnlyA)
	for _, row := range got.Kinds {
		if k := row.Kind.String(); k == "FUNC" && row.B != row.A+len(wantAdded)-len(wantRemoved) {
			t.Errorf("FUNC: default %d, ours %d, want %d more", row.A, row.B, len(wantAdded)-len(wantRemoved))
		}
	}
	if t.Failed() {
		var b strings.Builder
		for _, k := range got.OnlyB {
			b.WriteString("\n  + " + k.Key)
		}
		for _, k := range got.OnlyA {
			b.WriteString("\n  - " + k.Key)
		}
		t.Logf("differences from amd64.default.btf:%.4000s", b.String())
	}
}
