package encode

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// kindCounts counts the types of each kind.
func kindCounts(t *btf.Types) map[string]int {
	n := map[string]int{}
	for id := t.FirstID(); id < t.NextID(); id++ {
		n[t.Kind(id).String()]++
	}
	return n
}

// TestCorpusFeatureToggles turns features off (or picks pahole's legacy
// set) on the corpus kernel and checks the effect the spec measured on the
// reference pahole (pahole-behaviour.md §1.2 and §6.3).
func TestCorpusFeatureToggles(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the corpus kernel several times")
	}
	vmlinux := corpus.Vmlinux(t)
	def := encodeCorpusDefault(t)
	defKinds := kindCounts(def.res.Types)
	parse := func(list string) features.Set {
		s, _, err := features.Parse(list, true)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	without := func(name string) features.Set {
		s := features.Default()
		switch name {
		case "float":
			s.Float = false
		case "enum64":
			s.Enum64 = false
		case "var":
			s.Var = false
		case "consistent_func":
			s.ConsistentFunc = false
		}
		return s
	}
	withDefault := func(f func(*features.Set)) features.Set {
		s := features.Default()
		f(&s)
		return s
	}
	for _, tc := range []struct {
		name string
		set  features.Set
		want map[string]int // kinds that change; every other kind as default
		same bool           // byte-identical to default
	}{
		{"no float", without("float"), map[string]int{"FLOAT": 0, "INT": 17}, false},
		{"no enum64", without("enum64"), map[string]int{"ENUM64": 0, "ENUM": 1856}, false},
		{"no var", without("var"), map[string]int{"VAR": 0, "DATASEC": 0}, false},
		{"no consistent_func", without("consistent_func"), map[string]int{"FUNC": 43945, "FUNC_PROTO": 23633}, false},
		{"legacy -J", features.Legacy(), map[string]int{"FUNC": 43945, "FUNC_PROTO": 23633, "FLOAT": 0, "INT": 17}, false},
		{"empty list", parse(""), map[string]int{"FUNC": 43945, "FUNC_PROTO": 23633, "FLOAT": 0, "INT": 17,
			"VAR": 0, "DATASEC": 0, "ENUM64": 0, "ENUM": 1856}, false},
		{"global_var", withDefault(func(s *features.Set) { s.GlobalVar = true }), map[string]int{"VAR": 23709, "DATASEC": 13}, false},
		{"true_signature", withDefault(func(s *features.Set) { s.TrueSignature = true }), map[string]int{"FUNC": 44167, "FUNC_PROTO": 23796}, false},
		{"optimized_func off (a no-op)", withDefault(func(s *features.Set) { s.OptimizedFunc = false }), nil, true},
		{"reproducible_build (a no-op)", withDefault(func(s *features.Set) { s.ReproducibleBuild = true }), nil, true},
		{"attributes (no kfuncs on 6.1)", withDefault(func(s *features.Set) { s.Attributes = true }), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Encode(vmlinux, Options{Features: tc.set, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			got := kindCounts(res.Types)
			for k, n := range defKinds {
				want, changed := tc.want[k]
				if !changed {
					want = n
				}
				if got[k] != want {
					t.Errorf("%s: %d, want %d", k, got[k], want)
				}
			}
			for k, want := range tc.want {
				if _, ok := defKinds[k]; !ok && got[k] != want {
					t.Errorf("%s: %d, want %d", k, got[k], want)
				}
			}
			if tc.same {
				raw, err := res.Types.Marshal(binary.LittleEndian)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(raw, def.raw) {
					t.Error("output differs from the default features' bytes")
				}
			}
		})
	}
}
