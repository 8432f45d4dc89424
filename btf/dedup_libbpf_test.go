package btf

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btfgate/btfgate/internal/corpus"
)

// libbpfHarness returns the path of the libbpf dedup oracle
// (testdata/libbpf_dedup_harness.c), or skips the test.
func libbpfHarness(t *testing.T) string {
	p := os.Getenv("BTFGATE_LIBBPF_DEDUP")
	if p == "" {
		t.Skip("BTFGATE_LIBBPF_DEDUP (the built testdata/libbpf_dedup_harness.c) is not set")
	}
	return p
}

// libbpfDedup runs libbpf's btf__dedup on in (and base, for split BTF) and
// returns its raw output, or the error it failed with. in is given to libbpf
// as a table built from scratch (so its strings count as deduplicated), or
// if in's table came from Parse, as parsed BTF (so libbpf rebuilds it).
func libbpfDedup(t *testing.T, harness string, in *Types, baseFile string) ([]byte, error) {
	t.Helper()
	raw, err := in.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	inFile, outFile := filepath.Join(dir, "in.btf"), filepath.Join(dir, "out.btf")
	if err := os.WriteFile(inFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "1", inFile, outFile}
	if !in.Strings.deduped {
		args = []string{"-r", inFile, outFile}
	}
	if baseFile != "" {
		args = append([]string{"-b", baseFile}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, harness, args...).CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			t.Skipf("libbpf does not finish on this input: %v", err)
		}
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	return os.ReadFile(outFile)
}

// compareWithLibbpf deduplicates in with Dedup and with libbpf and reports
// the first difference.
func compareWithLibbpf(t *testing.T, harness string, in *Types, baseFile string) {
	t.Helper()
	want, lerr := libbpfDedup(t, harness, in, baseFile)
	out, err := Dedup(in)
	if lerr != nil || err != nil {
		if (lerr == nil) != (err == nil) {
			t.Fatalf("libbpf error: %v; Dedup error: %v", lerr, err)
		}
		return // both refuse the input
	}
	got, err := out.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	lt, err := Parse(want, in.Base)
	if err != nil {
		t.Fatalf("parsing libbpf's output: %v", err)
	}
	t.Errorf("Dedup: %d types, libbpf: %d", out.Len(), lt.Len())
	for id := out.FirstID(); id < out.NextID() && id < lt.NextID(); id++ {
		a, b := out.Type(id), lt.Type(id)
		if !equalWords(a.w, b.w) {
			t.Fatalf("first difference at type %d: Dedup %v %q %v, libbpf %v %q %v", id,
				a.Kind(), out.Strings.String(a.NameOff()), a.w, b.Kind(), lt.Strings.String(b.NameOff()), b.w)
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// TestDedupMatchesLibbpf compares Dedup with libbpf on random small units
// (BTFGATE_LIBBPF_CASES of them) and on units cut from the kernel's and
// ext4's BTF.
func TestDedupMatchesLibbpf(t *testing.T) {
	harness := libbpfHarness(t)
	t.Run("random", func(t *testing.T) {
		for seed := range uint64(envInt("BTFGATE_LIBBPF_CASES", 300)) {
			in := randomCUs(seed, 2+int(seed%4))
			t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { compareWithLibbpf(t, harness, in, "") })
			if t.Failed() {
				return
			}
		}
	})
	t.Run("random-universe", func(t *testing.T) {
		for seed := range uint64(envInt("BTFGATE_LIBBPF_CASES", 300)) {
			in := randomUniverseCUs(seed, 3+int(seed%8))
			t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { compareWithLibbpf(t, harness, in, "") })
			if t.Failed() {
				return
			}
		}
	})
	t.Run("parsed", func(t *testing.T) {
		// Parsed tables are not known to be deduplicated: libbpf rebuilds
		// them from the referenced strings.
		for seed := range uint64(envInt("BTFGATE_LIBBPF_CASES", 300) / 4) {
			raw, err := randomUniverseCUs(seed, 3+int(seed%8)).Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			in, err := Parse(raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { compareWithLibbpf(t, harness, in, "") })
		}
	})
	t.Run("inputs", func(t *testing.T) {
		for _, in := range dedupInputs(t) {
			compareWithLibbpf(t, harness, in, "")
		}
	})
	cases := envInt("BTFGATE_LIBBPF_KERNEL_CASES", 4)
	t.Run("kernel-units", func(t *testing.T) {
		src := parseReference(t, "amd64.default.btf", nil)
		for seed := range uint64(cases) {
			in := synthInput(t, src, nil, 100+100*int(seed), seed)
			t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { compareWithLibbpf(t, harness, in, "") })
		}
	})
	baseFile := corpus.ReferenceFile(t, "amd64.default.btf")
	base := parseReference(t, "amd64.default.btf", nil)
	t.Run("module-units", func(t *testing.T) {
		src := parseReference(t, "modules/ext4.default.btf", base)
		for seed := range uint64(cases) {
			in := synthInput(t, src, base, 30+30*int(seed), seed)
			t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { compareWithLibbpf(t, harness, in, baseFile) })
		}
	})
	t.Run("kernel-units-on-base", func(t *testing.T) {
		for seed := range uint64(cases) {
			in := synthInput(t, base, base, 20+20*int(seed), seed)
			t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { compareWithLibbpf(t, harness, in, baseFile) })
		}
	})
}

// dedupInputs loads the raw pre-dedup BTF files listed (comma-separated) in
// BTFGATE_DEDUP_INPUTS, e.g. the kernel's types as the encoder hands them to
// Dedup, each appended to a fresh table as pahole's strings are built.
func dedupInputs(tb testing.TB) []*Types {
	tb.Helper()
	var ins []*Types
	for _, path := range strings.Split(os.Getenv("BTFGATE_DEDUP_INPUTS"), ",") {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		p, err := Parse(data, nil)
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		in := NewTypes(NewStrings())
		if err := in.Append(p, nil); err != nil {
			tb.Fatal(err)
		}
		ins = append(ins, in)
	}
	if len(ins) == 0 {
		tb.Skip("BTFGATE_DEDUP_INPUTS (raw pre-dedup BTF files) is not set")
	}
	return ins
}
