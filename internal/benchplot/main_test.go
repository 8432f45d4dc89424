package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `{
  "date": "2026-11-29T17:00:00Z", "runs": 3, "cpus": 2, "cpu_model": "Test CPU", "mem_total_mib": 1024,
  "linux": "6.1", "go_version": "go1.26", "btfgate_commit": "abc+dirty", "pahole_version": "v1.24",
  "kernel": "/k", "module": "/m", "load_average_start": "1.00 1.00 1.00", "load_average_end": "2.00 1.00 1.00",
  "rows": [
    {"name": "btfgate -j1 vmlinux", "target": "vmlinux", "tool": "btfgate", "jobs": 1, "supported": true, "runs": 3,
     "wall_s": 6, "wall_min_s": 5.5, "cpu_s": 5.5, "rss_mib": 700, "load1": 1.5,
     "ratio_to_pahole": {"wall": 1.5, "wall_min": 1.38, "cpu": 0.8, "rss": 1.4},
     "phases": [{"name": "read", "seconds": 0.01}, {"name": "decode+convert", "seconds": 4}, {"name": "dedup", "seconds": 1.8},
                {"name": "startup+exit", "seconds": 0.1}]},
    {"name": "pahole -j2 vmlinux", "target": "vmlinux", "tool": "pahole", "jobs": 2, "supported": true, "runs": 3,
     "wall_s": 4, "wall_min_s": 4, "cpu_s": 6.8, "rss_mib": 500, "load1": 1.2, "ratio_to_pahole": null, "phases": null},
    {"name": "btfgate -j1 ext4.ko", "target": "ext4.ko", "tool": "btfgate", "jobs": 1, "supported": false}
  ],
  "determinism": [{"target": "vmlinux", "jobs": [1, 2, 8], "identical": true},
                  {"target": "ext4.ko", "jobs": [1, 2, 4, 8], "identical": false}],
  "rss_traces": [
    {"name": "btfgate -j1 vmlinux", "tool": "btfgate", "interval_s": 0.5, "wall_s": 6.2, "encode_total_s": 6.0,
     "phases": [{"name": "read", "seconds": 0.01}, {"name": "decode+convert", "seconds": 4}, {"name": "dedup", "seconds": 1.99}],
     "samples": [[0.0, 5], [0.5, 100], [1.0, 300], [3.0, 500], [4.5, 700], [5.5, 650], [6.0, 600]]},
    {"name": "pahole -j2 vmlinux", "tool": "pahole", "interval_s": 0.5, "wall_s": 4.1, "encode_total_s": null,
     "phases": null, "samples": [[0.0, 5], [2.0, 400], [4.0, 500]]}
  ]
}`

func TestRender(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "b.json"), filepath.Join(dir, "b.svg")
	if err := os.WriteFile(in, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := run(in, out, true, &stdout); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
	}
	for _, want := range []string{"decode+convert", "≤0.25× pahole", "≤0.5× pahole", "fastest 5.50 s (1.38×)", "polyline", "vmlinux -j1/-j2/-j8 outputs identical",
		"ext4.ko -j1/-j2/-j4/-j8 outputs DIFFERENT"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	text := stdout.String()
	// Encode started at 6.2 - 6.0 = 0.2 s: startup [0, 0.2], read
	// [0.2, 0.21] (no sample: interpolated), decode+convert [0.21, 4.21]
	// (peak 500 at 3.0), dedup [4.21, 6.2] (peak 700 at 4.5).
	for _, want := range []string{
		"| btfgate -j1 vmlinux | 3 | 6.00 | 5.50 | 5.50 | 700 | 1.5 | 1.50 | 1.38 | 0.80 | 1.40 |",
		"| decode+convert | 500 |", "| dedup | 700 |", "| read | ≈", "| startup | 5 |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct{ max, want float64 }{{10, 2}, {7, 2}, {700, 200}, {0.9, 0.2}, {4.5, 1}} {
		if got := niceStep(c.max, 5); got != c.want {
			t.Errorf("niceStep(%v) = %v, want %v", c.max, got, c.want)
		}
	}
}
