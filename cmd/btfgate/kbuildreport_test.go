package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPaholeFrontEndReportDir: with BTFGATE_REPORT_DIR the pahole front
// end writes each encode's report and summary there, and with a rules
// file that changes the output it says so in one line (issue 18, "Why"
// 5); the .BTF written is the same as without the report directory.
func TestPaholeFrontEndReportDir(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "types.o")
	plain := filepath.Join(dir, "plain.o")
	for _, p := range []string{obj, plain} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rf := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(rf, []byte("data:\n  deny: [fn_driver]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := filepath.Join(dir, "reports")
	if err := os.Mkdir(reports, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(rulesEnv, rf)
	if err := runPahole([]string{"-J", "--btf_features=default", plain}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	t.Setenv(reportDirEnv, reports)
	var stderr bytes.Buffer
	if err := runPahole([]string{"-J", "--btf_features=default", obj}, &bytes.Buffer{}, &stderr); err != nil {
		t.Fatal(err)
	}
	if want := "btfgate: types.o: " + rf + " changed the BTF: 1 function(s) left out that pahole keeps\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	a, _ := os.ReadFile(obj)
	b, _ := os.ReadFile(plain)
	if !bytes.Equal(a, b) {
		t.Error("the report directory changed the object written")
	}

	f, err := os.Open(filepath.Join(reports, "types.o.report.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	decisions := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l struct{ Name, Decision string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		decisions[l.Name] = l.Decision
	}
	if decisions["fn_driver"] != "exclude" || decisions["fn_varargs"] != "include" {
		t.Errorf("report decisions %v", decisions)
	}
	sum, err := os.ReadFile(filepath.Join(reports, "types.o.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Input     string
		Functions struct {
			SkippedBy map[string]int `json:"skipped_by_reason"`
		}
		Types int
	}
	if err := json.Unmarshal(sum, &s); err != nil || s.Input != obj || s.Functions.SkippedBy["denied by configuration (fn_driver)"] != 1 || s.Types == 0 {
		t.Errorf("summary %+v (%v):\n%s", s, err, sum)
	}

	// Without a rules file nothing is said; a missing directory is an
	// error before anything is written.
	t.Setenv(rulesEnv, "")
	stderr.Reset()
	if err := runPahole([]string{"-J", "--btf_features=default", obj}, &bytes.Buffer{}, &stderr); err != nil || stderr.Len() > 0 {
		t.Errorf("without rules: %v, stderr %q", err, stderr.String())
	}
	t.Setenv(reportDirEnv, filepath.Join(dir, "missing"))
	if err := runPahole([]string{"-J", "--btf_features=default", obj}, &bytes.Buffer{}, &stderr); err == nil || !strings.Contains(err.Error(), "BTFGATE_REPORT_DIR") {
		t.Errorf("missing report dir: %v", err)
	}
}
