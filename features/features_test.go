package features

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	def := Default()
	for _, tc := range []struct {
		list    string
		want    Set
		unknown []string
	}{
		{"default", def, nil},
		{"", Set{}, nil},
		{"var,float", Set{Var: true, Float: true}, nil},
		{"+true_signature", func() Set { s := def; s.TrueSignature = true; return s }(), nil},
		{"default,global_var,true_signature", func() Set { s := def; s.GlobalVar = true; s.TrueSignature = true; return s }(), nil},
		// pahole's --btf_gen_all asks for "all", which no longer exists: nothing is on.
		{"all", Set{}, []string{"all"}},
		{"enum64, bogus ,type_tag", Set{Enum64: true, TypeTag: true}, []string{"bogus"}},
	} {
		got, unknown, err := Parse(tc.list, false)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.list, err)
		}
		if got != tc.want || !reflect.DeepEqual(unknown, tc.unknown) {
			t.Errorf("Parse(%q) = %v %v, want %v %v", tc.list, got.Enabled(), unknown, tc.want.Enabled(), tc.unknown)
		}
	}
	if _, _, err := Parse("var,bogus", true); err == nil {
		t.Error("strict parse accepted an unknown name")
	}
}

func TestDefaultMatchesPahole(t *testing.T) {
	// The reference README: default means encode_force, var, float, decl_tag,
	// type_tag, enum64, optimized_func, consistent_func, decl_tag_kfuncs.
	want := "encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs"
	if got := Default().String(); got != want {
		t.Errorf("Default() = %s, want %s", got, want)
	}
	if got := Legacy().String(); got != "var,decl_tag,type_tag,enum64" {
		t.Errorf("Legacy() = %s", got)
	}
	if len(Names()) != 15 {
		t.Errorf("%d features, want pahole's 15", len(Names()))
	}
}

// TestApplyOption: pahole's single-feature options set or clear their
// feature and nothing else; --btf_gen_all clears the set; other options
// are not theirs.
func TestApplyOption(t *testing.T) {
	cases := []struct {
		opt  string
		want func(s Set) Set
	}{
		{"--btf_gen_floats", func(s Set) Set { s.Float = true; return s }},
		{"--btf_gen_optimized", func(s Set) Set { s.OptimizedFunc = true; return s }},
		{"--btf_encode_force", func(s Set) Set { s.EncodeForce = true; return s }},
		{"--skip_encoding_btf_vars", func(s Set) Set { s.Var = false; return s }},
		{"--skip_encoding_btf_decl_tag", func(s Set) Set { s.DeclTag = false; return s }},
		{"--skip_encoding_btf_type_tag", func(s Set) Set { s.TypeTag = false; return s }},
		{"--skip_encoding_btf_enum64", func(s Set) Set { s.Enum64 = false; return s }},
		{"--skip_encoding_btf_inconsistent_proto", func(s Set) Set { s.ConsistentFunc = true; return s }},
		{"--reproducible_build", func(s Set) Set { s.ReproducibleBuild = true; return s }},
		{"--btf_attributes", func(s Set) Set { s.Attributes = true; return s }},
		{"--btf_gen_all", func(Set) Set { return Set{} }},
	}
	for _, c := range cases {
		s := Legacy()
		if !ApplyOption(c.opt, &s) {
			t.Errorf("%s: not an option", c.opt)
			continue
		}
		if want := c.want(Legacy()); s != want {
			t.Errorf("%s: %v, want %v", c.opt, s, want)
		}
	}
	for _, opt := range []string{"", "-J", "--btf_features", "--skip_encoding_btf"} {
		s := Legacy()
		if ApplyOption(opt, &s) || s != Legacy() {
			t.Errorf("%q taken as a feature option", opt)
		}
	}
	var on int
	for _, f := range Default().Flags() {
		if f.On {
			on++
		}
	}
	if len(Default().Flags()) != len(Names()) || on != len(Default().Enabled()) {
		t.Errorf("Flags: %d names, %d on; want %d, %d", len(Default().Flags()), on, len(Names()), len(Default().Enabled()))
	}
}
