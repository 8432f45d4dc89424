package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/outputs"
)

// reportDirEnv names a directory where the pahole front end writes each
// encode's decision report and JSON summary, so that a kernel build,
// which runs it many times with arguments of its own, can be examined
// afterwards.
const reportDirEnv = "BTFGATE_REPORT_DIR"

// kbuildReports are the files of one encode in the report directory:
// NAME.report.ndjson and NAME.summary.json, NAME the input's base name.
type kbuildReports struct {
	report, summary string
}

// kbuildReportFiles declares the report directory's files for input in
// outs, or returns nil when reportDirEnv is unset.
func kbuildReportFiles(outs *outputs.Set, input string) (*kbuildReports, error) {
	dir := os.Getenv(reportDirEnv)
	if dir == "" {
		return nil, nil
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s=%s: not a directory: create it before the build", reportDirEnv, dir)
	}
	base := filepath.Base(input)
	k := &kbuildReports{report: filepath.Join(dir, base+".report.ndjson"), summary: filepath.Join(dir, base+".summary.json")}
	for _, o := range [][2]string{{reportDirEnv + " report", k.report}, {reportDirEnv + " summary", k.summary}} {
		if err := outs.Add(o[0], o[1]); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// write stages the report and the summary.
func (k *kbuildReports) write(outs *outputs.Set, input, output string, set features.Set, res *encode.Result, size int, took time.Duration) error {
	if err := writeReport(outs, k.report, res); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := newSummary(input, output, set, res, size, took).writeJSON(&b); err != nil {
		return err
	}
	return outs.Write(k.summary, b.Bytes(), 0o644)
}

// rulesChanged writes one line saying how a rules file changed the
// output against pahole's rules: functions left out that pahole keeps,
// functions put in that pahole skips, decl tags added. It writes nothing
// when the output is pahole's.
func rulesChanged(w io.Writer, input, rulesFile string, res *encode.Result) {
	out, in, tags := 0, 0, 0
	for _, d := range res.Decisions {
		pahole := d.Final == ""
		switch {
		case pahole && !d.Include:
			out++
		case !pahole && d.Include:
			in++
		}
		if d.Include && res.AnnotationsDropped == "" {
			tags += len(d.Annotations)
		}
	}
	var parts []string
	if out > 0 {
		parts = append(parts, fmt.Sprintf("%d function(s) left out that pahole keeps", out))
	}
	if in > 0 {
		parts = append(parts, fmt.Sprintf("%d put in that pahole skips", in))
	}
	if tags > 0 {
		parts = append(parts, fmt.Sprintf("%d decl tag(s) added", tags))
	}
	if len(parts) == 0 {
		return
	}
	fmt.Fprintf(w, "btfgate: %s: %s changed the BTF: %s\n", filepath.Base(input), rulesFile, strings.Join(parts, ", "))
}
