package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

// userPolicy is a user module that calls its own function, replaces one
// with a with modifier, selects true signatures and reads a fact through
// a computed key.
const userPolicy = `package btfgate.functions

short(name) := count(name) < 5

named(f) := f.name

skip.short[id] contains "short name" if {
	some id, f in input.functions
	startswith(f.name, "fn_0002")
	short(f.name) with count as half_count
}

half_count(x) := count(x) / 2

true_signature.mine[id] contains "mine" if {
	some id, f in input.functions
	startswith(named(f), "fn_0001")
}

exclude.computed[id] contains "computed" if {
	some id, f in input.functions
	some k in data.btfgate.config.facts
	f[k] == "never"
}
`

// indexedPolicy has a comprehension the compiler indexes (by name: it is
// evaluated once per name, not once per function).
const indexedPolicy = `package btfgate.functions

exclude.same_name[id] contains "shares its name" if {
	some id, f in input.functions
	name := f.name
	ids := [other | some other; input.functions[other].name == name]
	count(ids) > 1
}
`

// TestPolicyCacheLoadsTheCompile compiles policy sets as New does
// (the embedded set with and without its rule families, and with a
// user's module), encodes and decodes them, and loads them: the loaded
// compiler holds the same modules (their String(), every node's location
// and flags, less the comments), rewritten variables and rule types as
// the compile, and the derived data reads back.
func TestPolicyCacheLoadsTheCompile(t *testing.T) {
	for name, cfg := range map[string]Config{
		"defaults":   {},
		"no default": {NoDefault: true},
		"user":       {Modules: []Module{{Name: "mine.rego", Source: userPolicy}}},
		"indexed":    {Modules: []Module{{Name: "indexed.rego", Source: indexedPolicy}}},
	} {
		t.Run(name, func(t *testing.T) {
			modules, err := loadModules(cfg)
			if err != nil {
				t.Fatal(err)
			}
			trusted := embeddedOnly(cfg)
			caps, forbidden := sandbox()
			parsed, err := parseModules(modules, caps, forbidden)
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]*ast.Module{}
			for _, m := range parsed {
				byName[m.Package.Location.File] = m
			}
			full := newCompiler(caps, false, trusted)
			if full.Compile(byName); full.Failed() {
				t.Fatal(full.Errors)
			}
			set, err := derive(parsed, userModules(cfg), trusted)
			if err != nil {
				t.Fatal(err)
			}
			set.compiled(full)
			store, err := configStore(nil)
			if err != nil {
				t.Fatal(err)
			}
			env := queryEnv{compiler: full, store: store}
			prepared := map[string]*preparedQuery{}
			queries := []string{decisionQuery, problemsQuery, variableQuery, variableProblemsQuery, trueSignatureQuery}
			for _, q := range queries {
				if prepared[q], err = env.prepare(q); err != nil {
					t.Fatal(err)
				}
			}
			set.queries = compiledQueries(prepared)
			if len(set.queries) != len(queries) {
				t.Fatalf("%d queries kept compiled, want %d", len(set.queries), len(queries))
			}
			key := []byte("key")
			data, err := encodeCompiled(key, set)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeCompiled(key, data)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := loadCompiler(false, trusted, got)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(slices.Sorted(maps.Keys(loaded.Modules)), slices.Sorted(maps.Keys(full.Modules))) {
				t.Fatalf("modules %v, want %v", slices.Sorted(maps.Keys(loaded.Modules)), slices.Sorted(maps.Keys(full.Modules)))
			}
			for name, m := range full.Modules {
				if got, want := loaded.Modules[name].String(), m.String(); got != want {
					t.Errorf("%s loads as\n%s\nwant\n%s", name, got, want)
				}
				uncommented := *m // the cache keeps no comments
				uncommented.Comments = nil
				if got, want := nodeTrace(loaded.Modules[name]), nodeTrace(&uncommented); !slices.Equal(got, want) {
					t.Errorf("%s: nodes differ", name)
				}
				for _, r := range m.Rules {
					path := r.Ref().ConstantPrefix() // compiled: from data
					if got, want := types.Sprint(loaded.TypeEnv.GetByRef(path)), types.Sprint(full.TypeEnv.GetByRef(path)); got != want {
						t.Errorf("%v types as %s, want %s", path, got, want)
					}
				}
			}
			for q, want := range set.queries {
				if got := got.queries[q]; got.String() != want.String() || !slices.Equal(bodyTrace(got), bodyTrace(want)) {
					t.Errorf("query %s loads as %v, want %v", q, got, want)
				}
			}
			if !maps.Equal(loaded.RewrittenVars, full.RewrittenVars) {
				t.Errorf("rewritten vars differ")
			}
			if got, want := comprehensionIndices(loaded), comprehensionIndices(full); !slices.Equal(got, want) || set.indexed != (len(want) > 0) {
				t.Errorf("comprehension indices %q, want %q (indexed %v)", got, want, set.indexed)
			}
			if wantIndexed := name == "indexed"; set.indexed != wantIndexed {
				t.Errorf("indexed = %v, want %v", set.indexed, wantIndexed)
			}
			if !slices.Equal(got.mentions, set.mentions) || !maps.Equal(got.origins, set.origins) ||
				!maps.Equal(got.variables, set.variables) || !slices.Equal(got.lint, set.lint) ||
				got.computed != set.computed || got.trueSigRule != set.trueSigRule {
				t.Errorf("derived data differs")
			}
			if _, err := decodeCompiled([]byte("other key"), data); err != errStale {
				t.Errorf("decoding under another key: %v, want errStale", err)
			}
			for n := 0; n < len(data); n += 401 { // damaged files are refused, not trusted
				if _, err := decodeCompiled(key, data[:n]); err == nil {
					t.Fatalf("a file cut at %d decodes", n)
				}
				bad := slices.Clone(data)
				bad[n] ^= 0xa5
				decodeCompiled(key, bad) // must not panic
				// nor may the decoder, given a change the checksum does not catch
				summed := binary.LittleEndian.AppendUint32(bad[:len(bad)-4:len(bad)-4], crc32.Checksum(bad[:len(bad)-4], crc32.MakeTable(crc32.Castagnoli)))
				decodeCompiled(key, summed)
			}
		})
	}
}

// TestPolicyCacheDecidesAlike decides the same functions and variables
// with an engine compiled and one loaded from the cache, for configs
// that exercise every query.
func TestPolicyCacheDecidesAlike(t *testing.T) {
	fns := syntheticKernel(4000)
	vars := syntheticVariables(2000, true)
	var printed bytes.Buffer
	printing := userPolicy + `
skip.printed[id] contains "printed" if {
	some id, f in input.functions
	startswith(f.name, "fn_00003")
	print("deciding", f.name)
}
`
	for name, cfg := range map[string]Config{
		"defaults":   defaults(),
		"no default": {NoDefault: true, Features: features.Default()},
		"lists": {Features: features.Default(), Data: map[string]any{
			"deny":           []any{"fn_0001*"},
			"keep":           []any{"fn_002*"},
			"tags":           []any{map[string]any{"name": "fn_0003*", "tag": "traced"}},
			"true_signature": []any{"fn_00*"},
		}},
		"print": {Features: features.Default(), Print: &printed},
		"user": {Features: features.Default(), Modules: []Module{{Name: "mine.rego", Source: userPolicy}},
			Data: map[string]any{"facts": []any{"name"}}},
		"user print": {Features: features.Default(), Modules: []Module{{Name: "mine.rego", Source: printing}}, Print: &printed},
		"user error": {Features: features.Default(), Modules: []Module{{Name: "div.rego",
			Source: "package btfgate.functions\n\nskip.x[id] contains msg if {\n\tinput.functions[id].name == \"fn_000001\"\n\tmsg := sprintf(\"%d\", [1 / 0])\n}\n"}}},
		"user malformed": {Features: features.Default(), Modules: []Module{{Name: "bad.rego",
			Source: "package btfgate.functions\n\nskip.single := {id: \"msg\" | input.functions[id]}\n"}}},
		"user metadata": {Features: features.Default(), Modules: []Module{{Name: "mine.rego", Source: userPolicy + `
# Not metadata: the compile reads the comments of a module that calls
# rego.metadata, and the cache keeps none.
skip.meta[id] contains sprintf("meta %v %v", [rego.metadata.rule(), count(rego.metadata.chain())]) if {
	some id, f in input.functions
	startswith(f.name, "fn_00004")
}
`}}, Data: map[string]any{"facts": []any{"name"}}},
		"user and lint": {Features: features.Default(), Modules: []Module{{Name: "mine.rego", Source: userPolicy},
			{Name: "idle.rego", Source: "package idle\n\nx := 1\n"}}},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			cfg.CacheDir = t.TempDir()
			compiled := newEngine(t, cfg)
			loaded := newEngine(t, cfg)
			if compiled.cached || !loaded.cached || compiled.CacheError() != nil {
				t.Fatalf("first engine cached %v (error %v), second %v: want a miss then a hit", compiled.cached, compiled.CacheError(), loaded.cached)
			}
			if loaded.query.qc != nil || loaded.shapes.qc != nil || loaded.vars.query.qc != nil || loaded.vars.shapes.qc != nil ||
				loaded.trueSig != nil && loaded.trueSig.qc != nil {
				t.Errorf("the loaded engine compiled its queries again")
			}
			printed.Reset()
			a, errA := compiled.DecideFunctions(ctx, fns, 1)
			printedA := printed.String()
			printed.Reset()
			b, errB := loaded.DecideFunctions(ctx, fns, 1)
			if printed.String() != printedA || cfg.Modules != nil && cfg.Print != nil && printedA == "" {
				t.Errorf("printed %q, loaded %q", printedA, printed.String())
			}
			if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
				t.Fatalf("errors %v and %v", errA, errB)
			}
			if name == "user error" {
				if errA == nil || !strings.Contains(errA.Error(), "div.rego:5:") {
					t.Errorf("error %v, want one at div.rego:5", errA)
				}
				return
			}
			if name == "user malformed" {
				if errA == nil || !strings.Contains(errA.Error(), "skip.single (bad.rego): entry for 1 (fn_000001) is string, want a set") {
					t.Errorf("error %v, want the malformed entry", errA)
				}
				return
			}
			if !slices.EqualFunc(a, b, equalDecision) {
				t.Errorf("function decisions differ")
			}
			reasons := map[string]int{}
			for _, d := range a {
				for _, r := range d.Reasons {
					reasons[r.Rule]++
				}
			}
			if !cfg.NoDefault && len(reasons) == 0 || cfg.Modules != nil && reasons["short"] == 0 ||
				name == "user metadata" && reasons["meta"] == 0 {
				t.Errorf("reasons %v: the test decides nothing", reasons)
			}
			va, errA := compiled.DecideVariables(ctx, vars, 2)
			vb, errB := loaded.DecideVariables(ctx, vars, 2)
			if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
				t.Fatalf("errors %v and %v", errA, errB)
			}
			if !slices.EqualFunc(va, vb, equalDecision) {
				t.Errorf("variable decisions differ")
			}
			if compiled.SelectsTrueSignature() != loaded.SelectsTrueSignature() {
				t.Fatalf("SelectsTrueSignature differs")
			}
			if compiled.SelectsTrueSignature() {
				ra, errA := compiled.SelectTrueSignature(ctx, fns, 2)
				rb, errB := loaded.SelectTrueSignature(ctx, fns, 2)
				if errA != nil || errB != nil || !slices.EqualFunc(ra, rb, slices.Equal) {
					t.Errorf("true_signature selections differ (errors %v, %v)", errA, errB)
				}
			}
			for _, f := range append(factNames(t), "no_such_fact") {
				if compiled.Mentions(f) != loaded.Mentions(f) {
					t.Errorf("Mentions(%q) differs", f)
				}
			}
			if !maps.Equal(compiled.origins, loaded.origins) || !maps.Equal(compiled.vars.origins, loaded.vars.origins) {
				t.Errorf("rule origins differ")
			}
			if !slices.Equal(compiled.Lint(), loaded.Lint()) || len(cfg.Modules) == 2 && len(loaded.Lint()) == 0 {
				t.Errorf("lint %q, loaded %q", compiled.Lint(), loaded.Lint())
			}
		})
	}
}

// TestPolicyCacheFiles: a damaged file is compiled over; a bad user
// module is not cached; a directory that cannot be written is an error of
// CacheError, not of New.
func TestPolicyCacheFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := defaults()
	cfg.CacheDir = dir
	newEngine(t, cfg)
	files, _ := filepath.Glob(filepath.Join(dir, "*"+policyFileSuffix))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// One byte changed anywhere past the key (in a string, a number, a
	// location) is refused as well as a file that is not one.
	damaged := map[string][]byte{"not a cache file": []byte("damaged"), "truncated": good[:len(good)-1]}
	for i := 1; i < 8; i++ {
		flipped := slices.Clone(good)
		flipped[len(flipped)*i/8] ^= 0x01
		damaged[fmt.Sprintf("byte %d of %d changed", len(flipped)*i/8, len(flipped))] = flipped
	}
	for name, data := range damaged {
		if err := os.WriteFile(files[0], data, 0o644); err != nil {
			t.Fatal(err)
		}
		if e := newEngine(t, cfg); e.cached {
			t.Errorf("%s: loaded", name)
		}
		if e := newEngine(t, cfg); !e.cached {
			t.Errorf("%s: not written again", name)
		}
	}

	bad := cfg
	bad.CacheDir = t.TempDir()
	bad.Modules = []Module{{Name: "bad.rego", Source: "package btfgate.functions\n\nskip.bad[id] contains \"m\" if input.functions[id].no_such_fact\n"}}
	if _, err := New(context.Background(), bad); err == nil {
		t.Fatal("a module reading no fact compiles")
	}
	if files, _ := filepath.Glob(filepath.Join(bad.CacheDir, "*")); len(files) != 0 {
		t.Errorf("a bad module cached: %v", files)
	}

	blocked := cfg
	blocked.CacheDir = filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked.CacheDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if e := newEngine(t, blocked); e.CacheError() == nil {
		t.Error("no CacheError for a cache directory that is a file")
	}
}

// factNames lists the names of every field of every subject type.
func factNames(t *testing.T) []string {
	subjects, err := facts.Subjects(subjectRoots()...)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, st := range subjects {
		fs, err := facts.Fields(st)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			out = append(out, f.Name)
		}
	}
	return out
}

// TestLoadedStagesFollowTheSwap: a trusted set's modules are put in the
// compiler after RemoveImports (loadCompiler), so no stage loading runs
// may come before it, and each must be one the compiler has.
func TestLoadedStagesFollowTheSwap(t *testing.T) {
	all := ast.AllStages()
	first := slices.Index(all, ast.StageRemoveImports)
	for _, trusted := range []bool{false, true} {
		for _, indexed := range []bool{false, true} {
			for _, st := range loadedStages(trusted, indexed) {
				switch i := slices.Index(all, st); {
				case i < 0:
					t.Errorf("stage %s: no such stage", st)
				case trusted && i < first:
					t.Errorf("trusted: stage %s runs before %s", st, ast.StageRemoveImports)
				}
			}
		}
	}
}

// TestLoadedCapabilities: a loaded set's compiler has the builtins the
// set names, and a set naming a builtin the sandbox forbids, or none of
// this OPA's, does not load.
func TestLoadedCapabilities(t *testing.T) {
	caps, err := loadedCapabilities(&compiledSet{builtins: []string{"count", "eq"}, features: []string{ast.FeatureRegoV1}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range caps.Builtins {
		names = append(names, b.Name)
	}
	if !slices.Equal(names, []string{"count", "eq"}) || !caps.ContainsFeature(ast.FeatureRegoV1) || caps.AllowNet == nil || len(caps.AllowNet) > 0 {
		t.Errorf("capabilities: builtins %v, features %v, allow_net %v", names, caps.Features, caps.AllowNet)
	}
	for _, name := range []string{"http.send", "time.now_ns", "no.such_builtin"} {
		if _, err := loadedCapabilities(&compiledSet{builtins: []string{"count", name}}); err == nil {
			t.Errorf("a set naming %s loads", name)
		}
	}
}
