package encode

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// TestCorpusModulesMatchReference: split BTF of each corpus module against
// the reference vmlinux BTF equals pahole's, by content (spec §5.11, and
// the ET_REL address quirk of §2.9 h).
func TestCorpusModulesMatchReference(t *testing.T) {
	base, baseRaw := referenceBase(t)
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
			ref, err := btfdiff.Load(corpus.ReferenceFile(t, "modules/"+name+".default.btf"), corpus.ReferenceFile(t, "amd64.default.btf"))
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

// TestCorpusDistilledBase: libbpf's distilled base (what pahole writes to
// .BTF.base with distilled_base, spec §5.11) of our ext4.ko split BTF has
// the same kinds as the one distilled from pahole's reference split BTF,
// its composites and enums carry no members, and the new split BTF starts
// right after it and resolves.
func TestCorpusDistilledBase(t *testing.T) {
	basePath := corpus.ReferenceFile(t, "amd64.default.btf")
	base, err := LoadBase(basePath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Encode(corpus.Module(t, "ext4"), Options{Features: features.Default(), Jobs: 2, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	dbase, split, err := btf.DistillBase(res.Types)
	if err != nil {
		t.Fatal(err)
	}
	refRaw, err := os.ReadFile(corpus.ReferenceFile(t, "modules/ext4.default.btf"))
	if err != nil {
		t.Fatal(err)
	}
	refSplit, err := btf.Parse(refRaw, base)
	if err != nil {
		t.Fatal(err)
	}
	refBase, _, err := btf.DistillBase(refSplit)
	if err != nil {
		t.Fatal(err)
	}
	got, want := kindCounts(dbase), kindCounts(refBase)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("distilled base kinds %v, from the reference's split BTF %v", got, want)
	}
	if got["INT"] == 0 || got["STRUCT"] == 0 {
		t.Errorf("distilled base %v lacks INT or STRUCT", got)
	}
	for id := dbase.FirstID(); id < dbase.NextID(); id++ {
		if k := dbase.Kind(id); (k == btf.KindStruct || k == btf.KindUnion || k == btf.KindEnum) && dbase.Type(id).Vlen() != 0 {
			t.Errorf("distilled %v %s has members", k, dbase.Name(id))
		}
	}
	if split.FirstID() != dbase.NextID() {
		t.Errorf("split ids start at %d, want %d", split.FirstID(), dbase.NextID())
	}
	if split.Len() <= res.Types.Len() {
		t.Errorf("distilled split has %d types, want more than the %d own types (pointers etc. move in)", split.Len(), res.Types.Len())
	}
	raw, err := split.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	braw, err := dbase.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	// The pair reads back, every reference resolving.
	b2, err := btf.Parse(braw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := btf.Parse(raw, b2); err != nil {
		t.Fatalf("distilled split BTF does not parse on its base: %v", err)
	}
}
