package encode

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// TestCorpusModulesMatchReference: split BTF of each corpus module against
// the reference vmlinux BTF equals pahole's, by content (spec §5.11, and
// the ET_REL address quirk of §2.9 h).
func TestCorpusModulesMatchReference(t *testing.T) {
	basePath := corpus.ReferenceFile(t, "amd64.default.btf")
	baseRaw, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	base, err := LoadBase(basePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range corpus.Modules() {
		t.Run(name, func(t *testing.T) {
			ko := corpus.Module(t, name)
			res, err := Encode(ko, Options{Features: features.Default(), Jobs: 2, Base: base})
			if err != nil {
				t.Fatal(err)
			}
			if first := res.Types.FirstID(); first != 100051 {
				t.Errorf("split ids start at %d, want 100051 (after the base's 100050)", first)
			}
			raw, err := res.Types.Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := btfdiff.FromBytes(name, raw, baseRaw)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := btfdiff.Load(corpus.ReferenceFile(t, "modules/"+name+".default.btf"), basePath)
			if err != nil {
				t.Fatal(err)
			}
			rep := btfdiff.Compare(ref, ours)
			if !rep.Equal() {
				for _, k := range rep.Kinds {
					if k.OnlyA != 0 || k.OnlyB != 0 {
						t.Errorf("%v: reference %d, ours %d (%d only in reference, %d only in ours)%s",
							k.Kind, k.A, k.B, k.OnlyA, k.OnlyB, examples(rep, k.Kind.String()))
					}
				}
			}
			if res.Types.Len() != ref.Len() {
				t.Errorf("%d own types, reference %d", res.Types.Len(), ref.Len())
			}
		})
	}
}
