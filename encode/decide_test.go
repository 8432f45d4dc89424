package encode

import (
	"context"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
)

func policyFor(t *testing.T, set features.Set, src string) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background(), engine.Config{Features: set,
		Modules: []engine.Module{{Name: "test.rego", Source: src}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// declTagsOn lists the DECL_TAG values on FUNC name.
func declTagsOn(ts *btf.Types, name string) []string {
	var out []string
	for id := ts.FirstID(); id < ts.NextID(); id++ {
		if ts.Kind(id) != btf.KindDeclTag {
			continue
		}
		if fn := ts.Ref(id); ts.Kind(fn) == btf.KindFunc && ts.Name(fn) == name {
			out = append(out, ts.Name(id))
		}
	}
	return out
}

// TestPolicyDeclTagsFollowDeclTag: policy decl tags are encoded with the
// decl_tag feature, and left out without it (as pahole leaves out every
// DECL_TAG then), with a warning and the reason in the result.
func TestPolicyDeclTagsFollowDeclTag(t *testing.T) {
	const src = `package btfgate.functions

annotate.mine := {id: {"traced"} | input.functions[id].name == "fn_driver"}
`
	for _, declTag := range []bool{true, false} {
		set := features.Default()
		set.DeclTag = declTag
		res, err := Encode(fixturePath(t, "types.gcc-dwarf5.o"), Options{Features: set, Jobs: 1, Policy: policyFor(t, set, src)})
		if err != nil {
			t.Fatal(err)
		}
		tags := declTagsOn(res.Types, "fn_driver")
		asked := 0
		for _, d := range res.Decisions {
			asked += len(d.Annotations)
		}
		if asked != 1 {
			t.Errorf("decl_tag=%v: the decisions hold %d annotations, want the one the policy asked for", declTag, asked)
		}
		if declTag {
			if len(tags) != 1 || tags[0] != "traced" || len(res.Warnings) != 0 || res.AnnotationsDropped != "" {
				t.Errorf("decl_tag on: tags %v, warnings %v, dropped %q; want the tag and no warning", tags, res.Warnings, res.AnnotationsDropped)
			}
			continue
		}
		if len(tags) != 0 {
			t.Errorf("decl_tag off: DECL_TAGs %v on fn_driver", tags)
		}
		if n := countKind(res.Types, btf.KindDeclTag); n != 0 {
			t.Errorf("decl_tag off: %d DECL_TAGs", n)
		}
		want := "the decl_tag feature is off: 1 decl tag(s) that policies add to 1 function(s) are left out of the BTF (annotate.mine 1)"
		if len(res.Warnings) != 1 || res.Warnings[0] != want || res.AnnotationsDropped != DeclTagOff {
			t.Errorf("decl_tag off: warnings %q, dropped %q; want %q", res.Warnings, res.AnnotationsDropped, want)
		}
	}
}

// TestPolicyParamsWithoutDetail: a policy that reads parameters gets them
// in a plain encode too (not only with a report).
func TestPolicyParamsWithoutDetail(t *testing.T) {
	const src = `package btfgate.functions

skip.two_params := {id: {"two or more parameters"} | count(input.functions[id].canonical.params) >= 2}
`
	set := features.Default()
	res, err := Encode(fixturePath(t, "types.gcc-dwarf5.o"), Options{Features: set, Jobs: 1, Policy: policyFor(t, set, src), DecideOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range res.Functions {
		two := len(f.Canonical.Params) >= 2
		skipped := false
		for _, r := range res.Decisions[i].Reasons {
			skipped = skipped || r.Rule == "two_params"
		}
		if f.Name == "fn_unused_param" && !two {
			t.Errorf("fn_unused_param: %d params in the facts", len(f.Canonical.Params))
		}
		if two != skipped {
			t.Errorf("%s: %d params, skipped by two_params: %v", f.Name, len(f.Canonical.Params), skipped)
		}
	}
}
