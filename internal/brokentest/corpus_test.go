package brokentest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// TestCLITruncatedCorpus is the acceptance test of the issue: btfgate
// encode on a corpus kernel cut to 60% prints one clear error line and
// exits non-zero, leaving no output.
func TestCLITruncatedCorpus(t *testing.T) {
	inputs := []string{corpus.Vmlinux(t)}
	if !testing.Short() {
		inputs = append(inputs, corpus.Module(t, "ext4"))
	}
	for _, src := range inputs {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "truncated-"+filepath.Base(src))
			copyPrefix(t, src, in, 0.6)
			outDir := filepath.Join(dir, "out")
			if err := os.Mkdir(outDir, 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(outDir, "vmlinux.btf")
			r := runCLI(t, timeoutFor(true), "encode", "-o", out, in)
			if !testing.Short() {
				honest := honestPeak(t, src, true, "encode", "--summary=none", "-o", filepath.Join(dir, "honest.btf"), src)
				summary.notePeak(classOf("corpus acceptance", ""), "truncated "+filepath.Base(src), r.maxRSS, honest)
			}
			if r.timedOut || r.exit != 1 {
				t.Fatalf("btfgate encode %s: exit %d (timed out: %v), want 1; stderr:\n%s", in, r.exit, r.timedOut, head(r.stderr, 20))
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasSuffix(r.stderr, "\n") {
				t.Fatalf("stderr has %d lines, want exactly one:\n%s", len(lines), r.stderr)
			}
			line := lines[0]
			if !strings.HasPrefix(line, "btfgate: ") || !strings.Contains(line, in) || !placeRE.MatchString(strings.ReplaceAll(line, in, "")) {
				t.Errorf("error line does not name the command, the file and the place: %s", line)
			}
			if len(line) > 400 {
				t.Errorf("error line is %d bytes long: %s", len(line), line)
			}
			if r.stdout != "" {
				t.Errorf("stdout: %q", r.stdout)
			}
			if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
				t.Errorf("output directory holds %d entries after the failure", len(entries))
			}
			t.Logf("%s", line)
			summary.add("corpus acceptance", true)
		})
	}
}

// copyPrefix writes the first fraction of src to dst.
func copyPrefix(tb testing.TB, src, dst string, fraction float64) {
	tb.Helper()
	f, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	n := int64(float64(st.Size()) * fraction)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(dst, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestBrokenCorpus mutates a corpus module: truncations, absurd headers,
// flipped bytes in its DWARF, a halved .debug_info.
func TestBrokenCorpus(t *testing.T) {
	src := corpus.Module(t, "ext4")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	im := parseImage(t, src, data)
	rng := rand.New(rand.NewPCG(2, 2))
	spread, flips := 12, 8
	if testing.Short() {
		spread, flips = 3, 2
	}
	var cases []brokenCase
	add := func(name string, b []byte, must bool) {
		cases = append(cases, brokenCase{name: "ext4-" + name, data: b, mustFail: must, source: src, big: true})
	}
	size := uint64(len(data))
	for k := 1; k <= spread; k++ {
		off := size * uint64(k) / uint64(spread+1)
		add(fmt.Sprintf("trunc-%#x", off), data[:off:off], true)
	}
	add("trunc-shdr-table", data[:im.shoff+im.shentsize/2], true)
	add("e_shnum-0xffff", im.with(im.ehdrField("e_shnum"), 0xffff), true)
	add("first-5-bytes", append([]byte{}, data[:5]...), true) // too short for an ELF identification
	b := im.clone()
	b[5] = 3 - b[5]
	add("flipped-ei-data", b, true)
	add("e_machine-0xffff", im.with(im.ehdrField("e_machine"), 0xffff), true)
	info := im.section(".debug_info")
	add("debug_info-halved", im.with(im.shdrField(info, "sh_size"), im.secs[info].Size/2), true)
	add("debug_abbrev-halved", im.with(im.shdrField(im.section(".debug_abbrev"), "sh_size"), im.secs[im.section(".debug_abbrev")].Size/2), true)
	for k := 0; k < flips; k++ {
		s := &im.secs[info]
		off := s.Offset + rng.Uint64N(s.Size)
		b := im.clone()
		b[off] ^= byte(1 + rng.IntN(255))
		add(fmt.Sprintf("flip.debug_info-at-%#x", off-s.Offset), b, false)
	}
	for _, name := range []string{".debug_loclists", ".debug_str_offsets", ".rela.debug_info", ".symtab"} {
		i := im.section(name)
		if i < 0 {
			continue
		}
		for k := 0; k < max(1, flips/2); k++ {
			s := &im.secs[i]
			off := s.Offset + rng.Uint64N(s.Size)
			b := im.clone()
			b[off] ^= byte(1 + rng.IntN(255))
			add(fmt.Sprintf("flip%s-at-%#x", name, off-s.Offset), b, false)
		}
	}
	runCases(t, "corpus ext4", cases)
}

// TestCLIRunawayPolicyCorpus: a policy over functions or variables that
// allocates without end, on the corpus kernel and ext4.ko, is stopped by
// the default (automatic) memory limit with an error naming
// --policy-memory, at a peak RSS within the bound every case is held to:
// twice the honest work (the same command without the policy) plus
// rssSlack.
func TestCLIRunawayPolicyCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the corpus kernel's encode four times")
	}
	policies := map[string]string{"functions": rangePolicy, "variables": rangeVarPolicy}
	for _, src := range []string{corpus.Vmlinux(t), corpus.Module(t, "ext4")} {
		for _, over := range []string{"functions", "variables"} {
			t.Run(filepath.Base(src)+"/"+over, func(t *testing.T) {
				dir := t.TempDir()
				honest := honestPeak(t, src, true, "encode", "--summary=none", "-o", filepath.Join(dir, "honest.btf"), src)
				pol := writeFile(t, filepath.Join(dir, "range.rego"), policies[over])
				out := filepath.Join(dir, "out.btf")
				r := runCLI(t, timeoutFor(true), "encode", "--summary=none", "--policy", pol, "-o", out, src)
				summary.addClass("corpus runaway policy", hostileClass["unbounded policy"], r.exit != 0)
				summary.notePeak(hostileClass["unbounded policy"], "runaway policy over "+over+" on "+filepath.Base(src), r.maxRSS, honest)
				if r.timedOut || r.exit != 1 || !strings.Contains(r.stderr, "--policy-memory") {
					t.Fatalf("exit %d (timed out: %v), want 1 and an error naming --policy-memory; stderr:\n%s", r.exit, r.timedOut, head(r.stderr, 20))
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s written by a failed encode", out)
				}
				if limit := rssFactor*honest + rssSlack; r.maxRSS > limit {
					t.Errorf("peak RSS %d MiB, over the bound %d MiB (honest work: %d MiB)", r.maxRSS>>20, limit>>20, honest>>20)
				}
				t.Logf("peak RSS %d MiB, honest %d MiB (%.2f×): %s", r.maxRSS>>20, honest>>20, float64(r.maxRSS)/float64(honest), strings.TrimSpace(r.stderr))
			})
		}
	}
}
