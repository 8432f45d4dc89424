package encode

import (
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
)

// varsByName counts the VARs of each name.
func varsByName(ts *btf.Types) map[string]int {
	out := map[string]int{}
	for id := ts.FirstID(); id < ts.NextID(); id++ {
		if ts.Kind(id) == btf.KindVar {
			out[ts.Name(id)]++
		}
	}
	return out
}

// TestVariablePoliciesLeaveOutAndTag: with global_var, a policy that
// excludes base_char and tags base_short gives the BTF of the plain encode
// (pahole's, see the fixture tests) without base_char's VAR, its DATASEC
// entry and its name, with one DECL_TAG on base_short's VAR; every other
// kind keeps its count. A keep rule over pahole's reason is an error.
func TestVariablePoliciesLeaveOutAndTag(t *testing.T) {
	const src = `package btfgate.variables

exclude.hide := {id: {"hidden"} | input.variables[id].name == "base_char"}

annotate.tag := {id: {"secret"} | input.variables[id].name == "base_short"}
`
	set := features.Default()
	set.GlobalVar = true
	for _, fixture := range []string{"types.gcc-dwarf5.o", "types.clang-dwarf5.o"} {
		plain, err := Encode(fixturePath(t, fixture), Options{Features: set, Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Encode(fixturePath(t, fixture), Options{Features: set, Jobs: 2, Policy: policyFor(t, set, src)})
		if err != nil {
			t.Fatal(err)
		}
		pv, gv := varsByName(plain.Types), varsByName(got.Types)
		if pv["base_char"] != 1 || gv["base_char"] != 0 || len(gv) != len(pv)-1 {
			t.Errorf("%s: base_char VARs %d -> %d, %d -> %d names", fixture, pv["base_char"], gv["base_char"], len(pv), len(gv))
		}
		if _, ok := got.Types.Strings.Find("base_char"); ok {
			t.Errorf("%s: the name base_char is still in the string table", fixture)
		}
		var tags []string
		for id := got.Types.FirstID(); id < got.Types.NextID(); id++ {
			if got.Types.Kind(id) == btf.KindDeclTag && got.Types.Kind(got.Types.Ref(id)) == btf.KindVar {
				tags = append(tags, got.Types.Name(got.Types.Ref(id))+"="+got.Types.Name(id))
			}
		}
		if strings.Join(tags, ",") != "base_short=secret" {
			t.Errorf("%s: decl tags on VARs %v, want base_short=secret", fixture, tags)
		}
		entries := func(ts *btf.Types) int {
			n := 0
			for id := ts.FirstID(); id < ts.NextID(); id++ {
				if ts.Kind(id) == btf.KindDatasec {
					n += ts.Vlen(id)
				}
			}
			return n
		}
		if entries(got.Types) != entries(plain.Types)-1 {
			t.Errorf("%s: %d DATASEC entries, want %d", fixture, entries(got.Types), entries(plain.Types)-1)
		}
		for k := btf.Kind(1); k <= btf.KindEnum64; k++ {
			want := countKind(plain.Types, k)
			switch k {
			case btf.KindVar:
				want--
			case btf.KindDeclTag:
				want++
			}
			if n := countKind(got.Types, k); n != want {
				t.Errorf("%s: %d %v, want %d", fixture, n, k, want)
			}
		}
		if err := got.Types.Validate(); err != nil {
			t.Errorf("%s: %v", fixture, err)
		}
	}

	const keep = `package btfgate.variables

keep.all := {id: {"everything"} | input.variables[id]}
`
	_, err := Encode(fixturePath(t, "types.gcc-dwarf5.o"), Options{Features: features.Default(), Jobs: 1, Policy: policyFor(t, features.Default(), keep)})
	if err == nil || !strings.Contains(err.Error(), "that pahole's rules leave out") || !strings.Contains(err.Error(), "base_char (CU 0, DIE 0x2e: section_not_encoded)") {
		t.Errorf("keep over pahole's reason: error %v", err)
	}
}
