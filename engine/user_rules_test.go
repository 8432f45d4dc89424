package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

const vendorDeny = `package btfgate.functions

# Functions a vendor never wants in BTF, by name glob.
exclude.vendor_deny[id] contains sprintf("vendor denies %s", [pattern]) if {
	some pattern in data.btfgate.config.vendor.deny
	glob.match(pattern, null, input.functions[id].name)
}
`

const keepOptimizedOnly = `package btfgate.functions

# A distro keeps functions whose only flaw is an optimized parameter.
keep.optimized_only[id] contains "only optimized parameters" if {
	skip.optimized_parameters[id]
	count({name | some name, by_id in skip; by_id[id]}) == 1
}
`

const tagKfuncs = `package btfgate.functions

annotate.kfunc_tags[id] contains "bpf_fastcall" if input.functions[id].kfunc

annotate.kfunc_tags[id] contains {"value": "first_arg", "component": 0} if {
	input.functions[id].kfunc
	count(input.functions[id].canonical.params) > 0
}
`

func TestUserExcludeByGlob(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules:  []Module{{Name: "vendor.rego", Source: vendorDeny}},
		Data:     map[string]any{"vendor": map[string]any{"deny": []any{"bpf_*", "*_unsafe"}}},
	})
	ds := decide(t, e,
		fn(1, "bpf_map_lookup", nil),
		fn(2, "copy_unsafe", func(f *facts.Function) { f.AmbiguousAddr = true }),
		fn(3, "vfs_read", nil),
	)
	want := []Reason{{Rule: "vendor_deny", Message: "vendor denies bpf_*", Module: "vendor.rego"}}
	if ds[0].Include || !slices.Equal(ds[0].Reasons, want) || ds[0].Final != "" {
		t.Errorf("bpf_map_lookup: %+v, want excluded by %v with no pahole reason", ds[0], want)
	}
	if ds[1].Include || !slices.Equal(rules(ds[1].Reasons), []string{"ambiguous_address", "vendor_deny"}) ||
		ds[1].Final != "ambiguous address" {
		t.Errorf("copy_unsafe: %+v, want pahole's reason, then the vendor's", ds[1])
	}
	if !ds[2].Include || len(ds[2].Reasons) > 0 {
		t.Errorf("vfs_read: %+v, want included", ds[2])
	}
}

func TestConfigDenyAndKeep(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Data: map[string]any{
			"deny": []any{map[string]any{"name": "bpf_*", "reason": "not for tracing"}},
			"keep": []any{"vfs_*"},
		},
	})
	ds := decide(t, e,
		fn(1, "bpf_x", nil),
		fn(2, "vfs_read", func(f *facts.Function) { f.Reordered = true }),
	)
	if ds[0].Include || !slices.Equal(ds[0].Reasons, []Reason{{"config_deny", "not for tracing", "config_lists.rego"}}) {
		t.Errorf("bpf_x: %+v", ds[0])
	}
	if !ds[1].Include || ds[1].Final != "reordered parameters" ||
		!slices.Equal(ds[1].Kept, []Reason{{"config_keep", "kept by configuration (vfs_*)", "config_lists.rego"}}) {
		t.Errorf("vfs_read: %+v, want kept over pahole's reordered", ds[1])
	}
}

func TestUserKeepOverridesOptimizedOnly(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules:  []Module{{Name: "distro.rego", Source: keepOptimizedOnly}},
	})
	optimized := func(f *facts.Function) { f.Canonical.OptimizedSkip = true }
	ds := decide(t, e,
		fn(1, "only_o", optimized),
		fn(2, "o_and_r", func(f *facts.Function) { optimized(f); f.Reordered = true }),
		fn(3, "only_a", func(f *facts.Function) { f.AmbiguousAddr = true }),
	)
	kept := []Reason{{"optimized_only", "only optimized parameters", "distro.rego"}}
	if !ds[0].Include || !slices.Equal(ds[0].Kept, kept) || ds[0].Final != "optimized parameters" ||
		!slices.Equal(rules(ds[0].Reasons), []string{"optimized_parameters"}) {
		t.Errorf("only_o: %+v, want kept, still reporting pahole's reason", ds[0])
	}
	if ds[1].Include || len(ds[1].Kept) > 0 {
		t.Errorf("o_and_r: %+v, want skipped", ds[1])
	}
	if ds[2].Include || len(ds[2].Kept) > 0 {
		t.Errorf("only_a: %+v, want skipped", ds[2])
	}
}

func TestUserAnnotations(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules:  []Module{{Name: "tags.rego", Source: tagKfuncs}},
	})
	kfunc := func(f *facts.Function) {
		f.Kfunc = true
		f.Canonical.Params = []facts.Param{{Name: "p", Type: "int", LocReg: 5}}
	}
	ds := decide(t, e,
		fn(1, "bpf_kfunc_x", kfunc),
		fn(2, "bpf_kfunc_skipped", func(f *facts.Function) { kfunc(f); f.AmbiguousAddr = true }),
		fn(3, "plain", nil),
	)
	want := []Annotation{
		{Value: "bpf_fastcall", Component: -1, Rule: "kfunc_tags"},
		{Value: "first_arg", Component: 0, Rule: "kfunc_tags"},
	}
	if !ds[0].Include || !slices.Equal(ds[0].Annotations, want) {
		t.Errorf("kfunc: annotations %+v, want %+v", ds[0].Annotations, want)
	}
	if ds[1].Include || len(ds[1].Annotations) > 0 {
		t.Errorf("skipped kfunc: %+v, want no annotations", ds[1])
	}
	if len(ds[2].Annotations) > 0 {
		t.Errorf("plain: annotated %+v", ds[2].Annotations)
	}
}

func TestKeepExcludeConflict(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Modules: []Module{
			{Name: "vendor.rego", Source: vendorDeny},
			{Name: "distro.rego", Source: keepOptimizedOnly},
		},
		Data: map[string]any{"vendor": map[string]any{"deny": []any{"bpf_*"}}},
	})
	_, err := e.DecideFunctions(context.Background(), []facts.Function{
		fn(1, "bpf_ok", nil),
		fn(2, "bpf_prog_run", func(f *facts.Function) { f.Canonical.OptimizedSkip = true }),
	}, 2)
	if err == nil {
		t.Fatal("no error for a function both kept and excluded")
	}
	for _, want := range []string{"bpf_prog_run", "id 2", "keep.optimized_only (distro.rego)", "exclude.vendor_deny (vendor.rego)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "bpf_ok") {
		t.Errorf("error %q names bpf_ok, which only one side names", err)
	}
}

func TestBadRuleValues(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"number message", `package btfgate.functions
exclude.nums[id] contains 42 if input.functions[id].name == "f"`, "exclude.nums: message 42 is not a string"},
		{"bad tag", `package btfgate.functions
annotate.bad[id] contains ["x"] if input.functions[id].name == "f"`, "annotate.bad"},
		{"bad component", `package btfgate.functions
annotate.bad[id] contains {"value": "x", "component": -2} if input.functions[id].name == "f"`, "component"},
		{"wrapping component", `package btfgate.functions
annotate.bad[id] contains {"value": "x", "component": 4294967296} if input.functions[id].name == "f"`, "past any parameter"},
		{"empty tag", `package btfgate.functions
annotate.bad[id] contains "" if input.functions[id].name == "f"`, "empty value"},
		{"NUL in a tag", `package btfgate.functions
annotate.bad[id] contains "a\u0000b" if input.functions[id].name == "f"`, "NUL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, Config{Modules: []Module{{Name: "bad.rego", Source: tc.src}}})
			_, err := e.DecideFunctions(context.Background(), []facts.Function{fn(1, "f", nil)}, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "function f") {
				t.Errorf("err = %v, want one naming function f and %q", err, tc.want)
			}
		})
	}
}

func TestNoDefault(t *testing.T) {
	e := newEngine(t, Config{
		NoDefault: true,
		Modules:   []Module{{Name: "vendor.rego", Source: vendorDeny}},
		Data:      map[string]any{"vendor": map[string]any{"deny": []any{"x*"}}, "deny": []any{"*"}},
	})
	ds := decide(t, e,
		fn(1, "ambiguous", func(f *facts.Function) { f.AmbiguousAddr = true }),
		fn(2, "xyz", nil),
	)
	if !ds[0].Include || len(ds[0].Reasons) > 0 {
		t.Errorf("without the default rules, pahole's flags must not matter: %+v", ds[0])
	}
	if ds[1].Include || !slices.Equal(rules(ds[1].Reasons), []string{"vendor_deny"}) {
		t.Errorf("user rules still apply: %+v", ds[1])
	}
}

func TestMalformedRuleDocuments(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"keyed by name", `package btfgate.functions
exclude.by_name[name] contains "x" if name := input.functions[_].name`,
			`exclude.by_name (bad.rego): key "f" is not the id of a function in input.functions`},
		{"single value", `package btfgate.functions
skip.single[id] := "msg" if input.functions[id].name == "f"`,
			`skip.single (bad.rego): entry for 1 (f) is string, want a set: write skip.single[id] contains VALUE`},
		{"not an object", `package btfgate.functions
keep.flat contains "x" if input.functions[_].name == "f"`,
			`keep.flat (bad.rego): want an object keyed by function id`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, Config{Modules: []Module{{Name: "bad.rego", Source: tc.src}}})
			smallBatches(e) // a batch per worker
			for _, jobs := range []int{1, 2} {
				_, err := e.DecideFunctions(context.Background(), []facts.Function{fn(1, "f", nil), fn(2, "g", nil)}, jobs)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("jobs %d: err = %v, want %q", jobs, err, tc.want)
				}
			}
		})
	}
}

// TestReasonOrder: pahole's reasons by precedence, then exclude reasons,
// then other skip reasons, each by rule and message; keep reasons by rule
// and message.
func TestReasonOrder(t *testing.T) {
	src := `package btfgate.functions

skip.aaa_local := {id: {"b", "a"} | input.functions[id].name == "f"}

exclude.zzz_deny := {id: {"denied"} | input.functions[id].name == "f"}

exclude.mmm_deny[id] contains "also denied" if input.functions[id].name == "f"

keep.z_keep[id] contains "z" if input.functions[id].name == "g"

keep.a_keep[id] contains msg if {
	input.functions[id].name == "g"
	some msg in ["y", "x"]
}
`
	e := newEngine(t, Config{Features: features.Default(), Modules: []Module{{Name: "order.rego", Source: src}}})
	ds := decide(t, e,
		fn(1, "f", func(f *facts.Function) { f.UnexpectedReg, f.Reordered = true, true }),
		fn(2, "g", func(f *facts.Function) { f.Reordered = true }),
	)
	var got []string
	for _, r := range ds[0].Reasons {
		got = append(got, r.Rule+":"+r.Message)
	}
	want := []string{"reordered_parameters:reordered parameters", "unexpected_register:unexpected register usage for parameter",
		"mmm_deny:also denied", "zzz_deny:denied", "aaa_local:a", "aaa_local:b"}
	if !slices.Equal(got, want) {
		t.Errorf("reasons = %q\nwant      %q", got, want)
	}
	if ds[0].Final != "reordered parameters" || ds[0].Include {
		t.Errorf("f: %+v", ds[0])
	}
	got = nil
	for _, r := range ds[1].Kept {
		got = append(got, r.Rule+":"+r.Message)
	}
	if want := []string{"a_keep:x", "a_keep:y", "z_keep:z"}; !slices.Equal(got, want) {
		t.Errorf("kept = %q, want %q", got, want)
	}
	if !ds[1].Include || ds[1].Final != "reordered parameters" {
		t.Errorf("g: %+v", ds[1])
	}
}

// TestKeepOnlyAndTagOnly: lists are sorted for functions that only keep
// or annotate rules name, too.
func TestKeepOnlyAndTagOnly(t *testing.T) {
	src := `package btfgate.functions

keep.z[id] contains "c" if input.functions[id].name == "f"

keep.k[id] contains msg if {
	input.functions[id].name == "f"
	some msg in ["b", "a"]
}

annotate.zz := {id: {"z"} | input.functions[id].name == "g"}

annotate.t[id] contains tag if {
	input.functions[id].name == "g"
	some tag in ["y", "x"]
}
`
	e := newEngine(t, Config{NoDefault: true, Modules: []Module{{Name: "k.rego", Source: src}}})
	for range 5 { // map order varies between runs
		ds := decide(t, e, fn(1, "f", nil), fn(2, "g", nil))
		var kept, tags []string
		for _, r := range ds[0].Kept {
			kept = append(kept, r.Rule+":"+r.Message)
		}
		for _, a := range ds[1].Annotations {
			tags = append(tags, a.Value)
		}
		if !slices.Equal(kept, []string{"k:a", "k:b", "z:c"}) || !slices.Equal(tags, []string{"x", "y", "z"}) {
			t.Fatalf("kept %q, tags %q: want sorted", kept, tags)
		}
	}
}
