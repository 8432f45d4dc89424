package engine

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

func TestDefaultRules(t *testing.T) {
	legacy := features.Default()
	legacy.ConsistentFunc = false
	trueSig := features.Default()
	trueSig.TrueSignature = true
	optimized := func(f *facts.Function) {
		f.Canonical.OptimizedParms = true
		f.Canonical.OptimizedSymbol = true
		f.Canonical.OptimizedSkip = true
	}
	clone := &facts.Instance{Addr: 0x9000, AddrMatchesSymbol: true, TrueSym: "f.isra.0"}

	tests := []struct {
		name     string
		features features.Set
		edit     func(*facts.Function)
		include  bool
		reasons  []string
		final    string
	}{
		{"clean", features.Default(), nil, true, nil, ""},
		{"A", features.Default(), func(f *facts.Function) { f.AmbiguousAddr = true }, false,
			[]string{"ambiguous_address"}, "ambiguous address"},
		{"O", features.Default(), optimized, false,
			[]string{"optimized_parameters"}, "optimized parameters"},
		{"R", features.Default(), func(f *facts.Function) { f.Reordered = true }, false,
			[]string{"reordered_parameters"}, "reordered parameters"},
		{"C", features.Default(), func(f *facts.Function) { f.UncertainLoc = true }, false,
			[]string{"uncertain_location"}, "uncertain parameter location"},
		{"I with consistent_func", features.Default(), func(f *facts.Function) { f.Inconsistent = true }, false,
			[]string{"inconsistent_prototype"}, "inconsistet prototype"},
		{"I without consistent_func", legacy, func(f *facts.Function) { f.Inconsistent = true }, true, nil, ""},
		{"U", features.Default(), func(f *facts.Function) { f.UnexpectedReg = true }, false,
			[]string{"unexpected_register"}, "unexpected register usage for parameter"},
		{"U+R+O reported as O", features.Default(), func(f *facts.Function) {
			f.UnexpectedReg, f.Reordered = true, true
			optimized(f)
		}, false, []string{"optimized_parameters", "reordered_parameters", "unexpected_register"}, "optimized parameters"},
		{"all six", features.Default(), func(f *facts.Function) {
			f.AmbiguousAddr, f.UnexpectedReg, f.UncertainLoc, f.Reordered, f.Inconsistent = true, true, true, true, true
			optimized(f)
		}, false, []string{"ambiguous_address", "optimized_parameters", "reordered_parameters",
			"uncertain_location", "inconsistent_prototype", "unexpected_register"}, "ambiguous address"},
		{"C+I without consistent_func", legacy, func(f *facts.Function) { f.UncertainLoc, f.Inconsistent = true, true }, false,
			[]string{"uncertain_location"}, "uncertain parameter location"},
		{"true signature emitted even if ambiguous", trueSig, func(f *facts.Function) {
			f.AmbiguousAddr, f.Reordered, f.Inconsistent = true, true, true
			f.TrueSig = clone
		}, true, nil, ""},
		{"true_signature without a clone", trueSig, func(f *facts.Function) { f.AmbiguousAddr = true }, false,
			[]string{"ambiguous_address"}, "ambiguous address"},
		// The encoder sets TrueSig without the feature only for groups a
		// true_signature rule selected: they are emitted as with it.
		{"clone selected without true_signature", features.Default(), func(f *facts.Function) {
			f.AmbiguousAddr = true
			f.TrueSig = clone
		}, true, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, Config{Features: tc.features})
			d := decide(t, e, fn(7, "f", tc.edit))[0]
			if d.ID != 7 || d.Name != "f" {
				t.Errorf("decision for %d %q, want 7 \"f\"", d.ID, d.Name)
			}
			if d.Include != tc.include {
				t.Errorf("Include = %v, want %v", d.Include, tc.include)
			}
			if got := rules(d.Reasons); !slices.Equal(got, tc.reasons) {
				t.Errorf("reasons = %v, want %v", got, tc.reasons)
			}
			if d.Final != tc.final {
				t.Errorf("Final = %q, want %q", d.Final, tc.final)
			}
			for _, r := range d.Reasons {
				if r.Module != r.Rule+".rego" {
					t.Errorf("reason %s comes from module %q, want %s.rego", r.Rule, r.Module, r.Rule)
				}
			}
			if len(d.Kept) > 0 || len(d.Annotations) > 0 {
				t.Errorf("default rules kept %v or annotated %v", d.Kept, d.Annotations)
			}
		})
	}
}

// TestDefaultMessages: each reason's message is pahole's, so that
// "NAME : skipping BTF encoding of function due to MESSAGE" matches its log.
func TestDefaultMessages(t *testing.T) {
	e := newEngine(t, defaults())
	d := decide(t, e, fn(1, "f", func(f *facts.Function) {
		f.AmbiguousAddr, f.UnexpectedReg, f.UncertainLoc, f.Reordered, f.Inconsistent = true, true, true, true, true
		f.Canonical.OptimizedSkip = true
	}))[0]
	var got []string
	for _, r := range d.Reasons {
		got = append(got, r.Message)
	}
	want := []string{"ambiguous address", "optimized parameters", "reordered parameters",
		"uncertain parameter location", "inconsistet prototype", "unexpected register usage for parameter"}
	if !slices.Equal(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
}

func TestDecisionsFollowInputOrder(t *testing.T) {
	e := newEngine(t, defaults())
	fns := []facts.Function{
		fn(30, "c", func(f *facts.Function) { f.Reordered = true }),
		fn(10, "a", nil),
		fn(20, "b", func(f *facts.Function) { f.AmbiguousAddr = true }),
	}
	ds := decide(t, e, fns...)
	for i, d := range ds {
		if d.ID != fns[i].ID || d.Name != fns[i].Name {
			t.Errorf("decision %d is for %d %s, want %d %s", i, d.ID, d.Name, fns[i].ID, fns[i].Name)
		}
	}
	if ds[0].Final != "reordered parameters" || !ds[1].Include || ds[2].Final != "ambiguous address" {
		t.Errorf("decisions = %+v", ds)
	}
}

func TestDecideEdgeCases(t *testing.T) {
	e := newEngine(t, defaults())
	ctx := context.Background()
	if ds, err := e.DecideFunctions(ctx, nil, 4); err != nil || len(ds) != 0 {
		t.Errorf("no functions: %v, %v", ds, err)
	}
	_, err := e.DecideFunctions(ctx, []facts.Function{fn(1, "a", nil), fn(1, "b", nil)}, 1)
	if err == nil || !strings.Contains(err.Error(), "id 1") || !strings.Contains(err.Error(), "a and b") {
		t.Errorf("duplicate ids: err = %v", err)
	}
	ds, err := e.DecideFunctions(ctx, []facts.Function{fn(1, "a", nil)}, 0)
	if err != nil || len(ds) != 1 || !ds[0].Include {
		t.Errorf("jobs 0 = GOMAXPROCS: %v, %v", ds, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.DecideFunctions(canceled, syntheticKernel(100), 2); err == nil {
		t.Error("canceled context: no error")
	}
}

// TestDeterministicAcrossJobs: decisions do not depend on how many batches
// the functions are split into, nor on the pieces a batch is evaluated in
// (more than 2*maxQuery functions: one job evaluates three pieces, two
// jobs two each, eight jobs one).
func TestDeterministicAcrossJobs(t *testing.T) {
	e := newEngine(t, Config{
		Features: features.Default(),
		Data:     map[string]any{"keep": []any{"fn_0000*"}, "tags": []any{map[string]any{"name": "fn_*7", "tag": "seven"}}},
	})
	fns := syntheticKernel(2*maxQuery + 800)
	var first []Decision
	for _, jobs := range []int{1, 2, 8} {
		ds, err := e.DecideFunctions(context.Background(), fns, jobs)
		if err != nil {
			t.Fatalf("jobs %d: %v", jobs, err)
		}
		if first == nil {
			first = ds
			continue
		}
		if !slices.EqualFunc(first, ds, equalDecision) {
			t.Errorf("jobs %d: decisions differ from jobs 1", jobs)
		}
	}
	var skipped, kept, tagged int
	for _, d := range first {
		if !d.Include {
			skipped++
		}
		if len(d.Kept) > 0 {
			kept++
		}
		if len(d.Annotations) > 0 {
			tagged++
		}
	}
	if skipped == 0 || kept == 0 || tagged == 0 {
		t.Errorf("skipped %d, kept %d, tagged %d: the test exercises nothing", skipped, kept, tagged)
	}
}

func equalDecision(a, b Decision) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Include == b.Include && a.Final == b.Final &&
		slices.Equal(a.Reasons, b.Reasons) && slices.Equal(a.Kept, b.Kept) && slices.Equal(a.Annotations, b.Annotations)
}

// TestBatches: a worker per batch, but no batch under minBatch items, so
// that a small module's functions are one query.
func TestBatches(t *testing.T) {
	for _, c := range []struct{ jobs, n, want int }{
		{2, 0, 1},
		{2, 2, 1},
		{8, 2*minBatch - 1, 1},
		{8, 2 * minBatch, 2},
		{2, 45000, 2},
		{1, 45000, 1},
		{3, 3*minBatch + 5, 3},
	} {
		if got := batches(c.jobs, c.n, minBatch); got != c.want {
			t.Errorf("batches(%d, %d) = %d, want %d", c.jobs, c.n, got, c.want)
		}
	}
	if got := batches(0, 1<<20, minBatch); got != runtime.GOMAXPROCS(0) {
		t.Errorf("batches(0, many) = %d, want GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
}
