package encode

import (
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

const kfuncFixture = "../testdata/fixtures/kfuncs.gcc-dwarf5.o"

// funcByName returns the FUNC named name and its decl tag values.
func funcByName(t *testing.T, types *btf.Types, name string) (btf.TypeID, []string) {
	t.Helper()
	var fn btf.TypeID
	for id := types.FirstID(); id < types.NextID(); id++ {
		if types.Kind(id) == btf.KindFunc && types.Name(id) == name {
			fn = id
		}
	}
	if fn == 0 {
		t.Fatalf("no FUNC %s", name)
	}
	var tags []string
	for id := types.FirstID(); id < types.NextID(); id++ {
		if types.Kind(id) == btf.KindDeclTag && types.Ref(id) == fn {
			tags = append(tags, types.Name(id))
		}
	}
	return fn, tags
}

// isArenaPtr: PTR -> TYPE_TAG(kind_flag, "address_space(1)") -> STRUCT name.
func isArenaPtr(types *btf.Types, id btf.TypeID, pointee string) bool {
	if types.Kind(id) != btf.KindPtr {
		return false
	}
	tag := types.Ref(id)
	v := types.Type(tag)
	return v.Kind() == btf.KindTypeTag && v.KindFlag() && types.Name(tag) == "address_space(1)" &&
		types.Name(types.Ref(tag)) == pointee
}

func TestKfuncDeclTagsAndArena(t *testing.T) {
	for _, tc := range []struct {
		name    string
		set     features.Set
		barTags string
		bazTags string
		arena   bool
	}{
		{"default", features.Default(), "bpf_kfunc,bpf_fastcall", "bpf_kfunc", false},
		{"attributes", func() features.Set { s := features.Default(); s.Attributes = true; return s }(), "bpf_kfunc,bpf_fastcall", "bpf_kfunc", true},
		{"no decl_tag_kfuncs", func() features.Set { s := features.Default(); s.DeclTagKfuncs = false; return s }(), "", "", false},
		{"no decl_tag", func() features.Set { s := features.Default(); s.DeclTag = false; s.Attributes = true; return s }(), "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Encode(kfuncFixture, Options{Features: tc.set, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			types := res.Types
			_, barTags := funcByName(t, types, "bar")
			baz, bazTags := funcByName(t, types, "baz")
			if got := join(barTags); got != tc.barTags {
				t.Errorf("bar decl tags %q, want %q", got, tc.barTags)
			}
			if got := join(bazTags); got != tc.bazTags {
				t.Errorf("baz decl tags %q, want %q", got, tc.bazTags)
			}
			for _, name := range []string{"qux", "quux", "kfuncs_use"} {
				if _, tags := funcByName(t, types, name); len(tags) != 0 {
					t.Errorf("%s has decl tags %v", name, tags)
				}
			}
			proto := types.Type(types.Ref(baz))
			ret, arg0 := proto.Ref(), proto.Param(0).Type
			if got := isArenaPtr(types, ret, "arena_obj") && isArenaPtr(types, arg0, "arena_obj"); got != tc.arena {
				t.Errorf("baz return and first parameter are arena pointers: %v, want %v", got, tc.arena)
			}
			if isArenaPtr(types, proto.Param(1).Type, "arena_obj") {
				t.Error("baz's second parameter got an arena tag")
			}
			facts := map[string][4]bool{}
			for _, f := range res.Functions {
				facts[f.Name] = [4]bool{f.Kfunc, f.PaholeKfunc, f.BTFIDRef, f.KfuncFlags == 0x1000}
			}
			// quux is in a set8 without BTF_SET8_KFUNCS, as every kfunc of
			// 6.1 is: a kfunc, not one pahole tags.
			for name, want := range map[string][4]bool{
				"bar": {true, true, true, true}, "baz": {true, true, true, false},
				"qux": {false, false, true, false}, "quux": {true, false, true, true}, "kfuncs_use": {},
			} {
				if facts[name] != want {
					t.Errorf("%s facts kfunc/pahole_kfunc/btf_id_ref/fastcall = %v, want %v", name, facts[name], want)
				}
			}
		})
	}
}

func join(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out
}

// TestCorpusKfuncsOf61: 6.1's kfunc id sets are set8s without
// BTF_SET8_KFUNCS. Their functions are kfuncs, not pahole's kfuncs (which
// it would tag): nf_conntrack's bpf_skb_ct_lookup is one, and so are the
// other nine entries of its nf_ct_kfunc_set (readelf -s: the
// __BTF_ID__func__ symbols inside __BTF_ID__set8__nf_ct_kfunc_set).
func TestCorpusKfuncsOf61(t *testing.T) {
	base, _ := referenceBase(t)
	res, err := Encode(corpus.Module(t, "nf_conntrack"), Options{Features: features.Default(), Jobs: 2, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	kfuncs := 0
	var found bool
	for _, f := range res.Functions {
		if f.Kfunc {
			kfuncs++
		}
		if f.PaholeKfunc {
			t.Errorf("%s: pahole_kfunc on 6.1", f.Name)
		}
		if f.Name == "bpf_skb_ct_lookup" {
			found = true
			if !f.Kfunc || !f.BTFIDRef {
				t.Errorf("bpf_skb_ct_lookup: kfunc %v btf_id_ref %v, want true true", f.Kfunc, f.BTFIDRef)
			}
		}
	}
	if !found {
		t.Fatal("no bpf_skb_ct_lookup in nf_conntrack")
	}
	if kfuncs != 10 {
		t.Errorf("nf_conntrack: %d kfuncs, want the 10 of nf_ct_kfunc_set", kfuncs)
	}
	for id := res.Types.FirstID(); id < res.Types.NextID(); id++ {
		if res.Types.Kind(id) == btf.KindDeclTag && res.Types.Name(id) == "bpf_kfunc" {
			t.Fatalf("a bpf_kfunc decl tag in 6.1's nf_conntrack (pahole writes none)")
		}
	}
}
