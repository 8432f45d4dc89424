package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/rules"
)

// TestOPAEvalDecidesLikeBtfgate runs the real opa binary on the corpus
// kernel's `facts --opa-input` export, with the default policies and each
// example rules file, and compares every function's decision, reasons,
// keep rules and decl tags with btfgate's; with guard-trip.yaml, the deny
// entries with btfgate's violations. It also holds the NDJSON export
// (facts.AppendJSON) equal to the input document, function by function.
func TestOPAEvalDecidesLikeBtfgate(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus kernel once per example and runs opa eval on each export")
	}
	vmlinux := corpus.Vmlinux(t)
	dir := t.TempDir()
	opa := buildOPA(t, dir)
	ex := func(p string) string { return filepath.Join(examplesDir, p) }
	configs := []string{"", ex("distro/rules.yaml"), ex("security/rules.yaml"), ex("security/annotate.yaml")}
	profiles, err := filepath.Glob(ex("profiles/*.yaml"))
	if err != nil || len(profiles) == 0 {
		t.Fatalf("no profiles in %s: %v", ex("profiles"), err)
	}
	configs = append(configs, profiles...)

	var defaultInput string
	// The default export first; then the other configurations two at a
	// time (each decodes the kernel, then waits on a serial opa eval);
	// the group ends before guard-trip reads the default export.
	t.Run("configs", func(t *testing.T) {
		for k, rf := range configs {
			name := "default"
			if rf != "" {
				name = filepath.Base(filepath.Dir(rf)) + "/" + filepath.Base(rf)
			}
			t.Run(name, func(t *testing.T) {
				if rf != "" {
					t.Parallel()
				}
				in := filepath.Join(dir, fmt.Sprintf("input-%d.json", k))
				if rf == "" {
					// The command itself, once.
					if _, stderr, err := run(t, "facts", "--opa-input", "-o", in, vmlinux); err != nil {
						t.Fatalf("facts --opa-input: %v\n%s", err, stderr)
					}
					defaultInput = in
				}
				res, st, err := decide(io.Discard, vmlinux, testPolicyFlags(t, rf))
				if err != nil {
					t.Fatalf("decide: %v", err)
				}
				doc, err := engine.InputDocument(st.features, res.Functions)
				if err != nil {
					t.Fatal(err)
				}
				if rf == "" {
					cmdDoc, err := os.ReadFile(in)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(cmdDoc, doc) {
						t.Fatalf("facts --opa-input wrote %d bytes, the input document has %d", len(cmdDoc), len(doc))
					}
					checkNDJSONIsInput(t, res.Functions, doc)
				} else if err := os.WriteFile(in, doc, 0o644); err != nil {
					t.Fatal(err)
				}
				got := opaEval(t, opa, dir, in, rf)
				compareOPADecisions(t, res, got)
			})
		}
	})

	t.Run("security/guard-trip.yaml", func(t *testing.T) {
		if defaultInput == "" {
			t.Skip("the default export failed")
		}
		rf := ex("security/guard-trip.yaml")
		_, _, err := decide(io.Discard, vmlinux, testPolicyFlags(t, rf))
		var ve *engine.ViolationsError
		if !errors.As(err, &ve) {
			t.Fatalf("decide: %v, want deny violations", err)
		}
		var want []string
		for _, v := range ve.Violations {
			want = append(want, fmt.Sprintf("%s %d %s", v.Rule, v.ID, v.Message))
		}
		// guard-trip selects no true signatures and keeps the default
		// features: its facts are the default export's.
		got := opaEval(t, opa, dir, defaultInput, rf)
		var have []string
		for rule, byID := range got.Deny {
			for id, msgs := range byID {
				for _, m := range msgs {
					have = append(have, fmt.Sprintf("%s %s %s", rule, id, m))
				}
			}
		}
		sort.Strings(want)
		sort.Strings(have)
		if !slices.Equal(want, have) {
			t.Errorf("opa eval deny:\n%v\nbtfgate's violations:\n%v", have, want)
		}
	})
}

// checkNDJSONIsInput: every function's NDJSON object (what `btfgate facts`
// writes) equals its object in the input document.
func checkNDJSONIsInput(t *testing.T, fns []facts.Function, doc []byte) {
	t.Helper()
	var in struct {
		Functions map[string]any `json:"functions"`
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		t.Fatal(err)
	}
	if len(in.Functions) != len(fns) {
		t.Fatalf("input document has %d functions, the facts %d", len(in.Functions), len(fns))
	}
	bad := 0
	for i := range fns {
		line, err := json.Marshal(&fns[i])
		if err != nil {
			t.Fatal(err)
		}
		var got any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatal(err)
		}
		if want := in.Functions[strconv.Itoa(fns[i].ID)]; !reflect.DeepEqual(got, want) {
			if bad++; bad <= 3 {
				t.Errorf("%s: NDJSON\n%s\ninput document\n%v", fns[i].Name, line, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d functions differ between the NDJSON and the input document", bad, len(fns))
	}
}

// opaResult is data.btfgate.decision.result as opa eval prints it: sets
// are arrays.
type opaResult struct {
	Documents map[string]map[string]map[string][]any `json:"documents"`
	Deny      map[string]map[string][]string         `json:"deny"`
	// LeftOut holds ids as strings: JSON object keys are strings, so the
	// export's input.functions is keyed by strings where btfgate's input
	// has numbers.
	LeftOut []any `json:"left_out"`
}

// opaEval evaluates the decision of the input file in with the default
// policies and, if rf is not "", the rules file's modules and data.
func opaEval(t *testing.T, opa, dir, in, rf string) *opaResult {
	t.Helper()
	args := []string{"eval", "--format", "json", "-i", in, "-d", "../../policies/"}
	if rf != "" {
		r, err := rules.Load(rf)
		if err != nil {
			t.Fatal(err)
		}
		if r.NoDefaultPolicies {
			t.Fatalf("%s: leaves the default policies out; this test loads them", rf)
		}
		files, err := rules.ExpandPolicies(r.Policies)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			args = append(args, "-d", f)
		}
		if r.Data != nil {
			data, err := json.Marshal(map[string]any{"btfgate": map[string]any{"config": r.Data}})
			if err != nil {
				t.Fatal(err)
			}
			df := strings.TrimSuffix(in, ".json") + ".data.json" // one per configuration: they run in parallel
			if err := os.WriteFile(df, data, 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, "-d", df)
		}
	}
	args = append(args, "data.btfgate.decision.result")
	cmd := exec.Command(opa, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("opa %v: %v\n%s", args, err, stderr.Bytes())
	}
	var r struct {
		Result []struct {
			Expressions []struct {
				Value opaResult `json:"value"`
			} `json:"expressions"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("opa eval output: %v", err)
	}
	if len(r.Result) != 1 || len(r.Result[0].Expressions) != 1 {
		t.Fatalf("opa eval: %d results, want 1", len(r.Result))
	}
	return &r.Result[0].Expressions[0].Value
}

// compareOPADecisions holds opa's documents to btfgate's decisions.
func compareOPADecisions(t *testing.T, res *encode.Result, got *opaResult) {
	t.Helper()
	for rule, byID := range got.Deny {
		if len(byID) > 0 {
			t.Errorf("opa eval: deny.%s names %d functions; btfgate succeeded", rule, len(byID))
		}
	}
	leftOut := map[string]bool{}
	for _, id := range got.LeftOut {
		leftOut[fmt.Sprint(id)] = true
	}
	// entries lists "RULE\x00MESSAGE" of the kinds for each id.
	entries := func(kinds ...string) map[string][]string {
		out := map[string][]string{}
		for _, kind := range kinds {
			for rule, byID := range got.Documents[kind] {
				for id, vals := range byID {
					for _, v := range vals {
						switch v := v.(type) {
						case string:
							out[id] = append(out[id], rule+"\x00"+v+"\x00-1")
						case map[string]any:
							out[id] = append(out[id], fmt.Sprintf("%s\x00%v\x00%v", rule, v["value"], v["component"]))
						}
					}
				}
			}
		}
		for _, l := range out {
			sort.Strings(l)
		}
		return out
	}
	reasons, kept, tags := entries("skip", "exclude"), entries("keep"), entries("annotate")
	// reasonKeys lists rs as entries lists a message.
	reasonKeys := func(rs []engine.Reason) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Rule+"\x00"+r.Message+"\x00-1")
		}
		sort.Strings(out)
		return out
	}
	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, d := range res.Decisions {
		id := strconv.Itoa(d.ID)
		if leftOut[id] == d.Include {
			report("%s: btfgate include=%v, opa left_out=%v", d.Name, d.Include, leftOut[id])
		}
		if g, w := reasons[id], reasonKeys(d.Reasons); !slices.Equal(g, w) {
			report("%s: opa reasons %q, btfgate %q", d.Name, g, w)
		}
		if g, w := kept[id], reasonKeys(d.Kept); !slices.Equal(g, w) {
			report("%s: opa keep %q, btfgate %q", d.Name, g, w)
		}
		if d.Include {
			var w []string
			for _, a := range d.Annotations {
				w = append(w, fmt.Sprintf("%s\x00%s\x00%d", a.Rule, a.Value, a.Component))
			}
			sort.Strings(w)
			if g := tags[id]; !slices.Equal(g, w) {
				report("%s: opa tags %q, btfgate %q", d.Name, g, w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d differences in %d functions", bad, len(res.Decisions))
	}
	t.Logf("%d functions, %d left out, same decisions", len(res.Decisions), len(got.LeftOut))
}

// buildOPA builds the opa command of the OPA module go.mod requires, in
// its module directory (its main package needs modules btfgate does not),
// and returns its path.
func buildOPA(t *testing.T, dir string) string {
	t.Helper()
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/open-policy-agent/opa")
	modDir, err := list.Output()
	if err != nil || len(bytes.TrimSpace(modDir)) == 0 {
		t.Skipf("cannot locate the OPA module: %v", err)
	}
	opa := filepath.Join(dir, "opa")
	build := exec.Command("go", "build", "-o", opa, ".")
	build.Dir = string(bytes.TrimSpace(modDir))
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build opa (its own dependencies must be in the module cache or reachable): %v\n%s", err, out)
	}
	return opa
}

// testPolicyFlags are the policy flags' defaults, with --rules rf if rf is
// not "".
func testPolicyFlags(t *testing.T, rf string) *policyFlags {
	t.Helper()
	var p policyFlags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	p.register(fs)
	// The configurations are decided side by side in this process: the
	// automatic policy memory limit, which reads the process's heap, would
	// take one encode's work for another's policy.
	args := []string{"--policy-memory", "4GiB"}
	if rf != "" {
		args = append(args, "--rules", rf)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &p
}
