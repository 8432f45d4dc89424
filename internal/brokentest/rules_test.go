package brokentest

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/rules"
)

// badRules are rules files that must be rejected.
func badRules() []struct{ name, src string } {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepMap := strings.Repeat("a: {", 20000) + strings.Repeat("}", 20000)
	// Billion laughs: nine levels of ten aliases each.
	laughs := "data:\n  l0: &l0 [lol]\n"
	for i := 1; i <= 9; i++ {
		laughs += "  l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " ["
		for k := 0; k < 10; k++ {
			if k > 0 {
				laughs += ","
			}
			laughs += "*l" + string(rune('0'+i-1))
		}
		laughs += "]\n"
	}
	return []struct{ name, src string }{
		{"empty", ""},
		{"only-comment", "# nothing\n"},
		{"tab-indent", "output:\n\tbtf: x\n"},
		{"unclosed-quote", "features: \"default\n"},
		{"unclosed-flow", "policies: [a, b\n"},
		{"unknown-field", "featurez: default\n"},
		{"unknown-nested-field", "output:\n  btf: x\n  bogus: y\n"},
		{"wrong-type-policies", "policies: 3\n"},
		{"wrong-type-strict", "features_strict: maybe\n"},
		{"wrong-type-output", "output: [a, b]\n"},
		{"two-documents", "features: a\n---\nfeatures: b\n"},
		{"data-int-key", "data:\n  1: x\n"},
		{"data-nested-bool-key", "data:\n  deny:\n    - {true: x}\n"},
		{"empty-policy", "policies: ['']\n"},
		{"top-level-list", "- a\n- b\n"},
		{"top-level-scalar", "just a string\n"},
		{"binary", "\x00\x01\x02\xff\xfe"},
		{"invalid-utf8", "features: \"\xff\xfe\"\n"},
		{"bom-then-garbage", "\ufeff: : :\n"},
		{"undefined-alias", "features: *nope\n"},
		{"self-alias", "data:\n  x: &a [*a]\n"},
		{"undefined-alias-line-3", "features: a\nfeatures_strict: true\npolicies: [*nope]\n"},
		{"second-document-broken", "features: a\n---\n[\n"},
		{"first-line-syntax", "features: [a\n"},
		{"duplicate-key", "features: a\nfeatures: b\n"},
		{"deep-flow", "data:\n  x: " + deep + "\n"},
		{"deep-map", "data:\n  " + deepMap + "\n"},
		{"billion-laughs", laughs},
		{"huge-line", "features: " + strings.Repeat("x", 1<<20) + "\n  : y\n"},
	}
}

// lineRE matches a line number after the file name ("FILE:3: ...").
var lineRE = regexp.MustCompile(`^[^:]*:\d+: `)

// TestBrokenRules feeds bad rules files to rules.Parse and to btfgate
// encode --rules.
func TestBrokenRules(t *testing.T) {
	rejected := 0
	for _, c := range badRules() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, fileName(c.name)+".yaml")
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			var before, after runtime.MemStats
			inProcess.Lock()
			runtime.ReadMemStats(&before)
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("rules.Parse panicked: %v\n%s", p, debug.Stack())
					}
				}()
				_, err = rules.Parse(path, []byte(c.src))
			}()
			runtime.ReadMemStats(&after)
			inProcess.Unlock()
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20+64*uint64(len(c.src)) {
				t.Errorf("rules.Parse allocated %d MiB for %d bytes", alloc>>20, len(c.src))
			}
			if err == nil {
				t.Fatalf("rules.Parse accepted it")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+":") || strings.Contains(msg, "\n") {
				t.Errorf("error does not start with the file name or spans lines: %q", msg)
			}
			switch c.name {
			case "empty", "only-comment", "binary", "invalid-utf8", "deep-flow", "deep-map", "billion-laughs", "empty-policy":
				// No line to name (or yaml.v3 gives none).
			default:
				if !lineRE.MatchString(msg) {
					t.Errorf("error does not name the line: %s", msg)
				}
			}

			outDir := filepath.Join(dir, "out")
			if err := os.Mkdir(outDir, 0o755); err != nil {
				t.Fatal(err)
			}
			r := runCLI(t, timeoutFor(false), "encode", "--summary=none", "--rules", path, "-o", filepath.Join(outDir, "out.btf"),
				fixturePath("types.gcc-dwarf5.o"))
			summary.notePeak(11, "rules "+c.name, r.maxRSS, baselineOf(t, fixturePath("types.gcc-dwarf5.o"), false).maxRSS)
			if r.timedOut || r.exit != 1 {
				t.Fatalf("btfgate encode --rules: exit %d (timed out %v), want 1:\n%s", r.exit, r.timedOut, head(r.stderr, 30))
			}
			if want := "btfgate: " + msg + "\n"; r.stderr != want {
				t.Errorf("stderr:\n%q\nwant:\n%q", r.stderr, want)
			}
			if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
				t.Errorf("failed encode left %d entries in the output directory", len(entries))
			}
			rejected++
			summary.add("rules", true)
		})
	}
	t.Logf("rules: %d bad files, %d rejected", len(badRules()), rejected)
}
