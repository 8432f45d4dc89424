package brokentest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
)

// brokenCase is one input file to encode.
type brokenCase struct {
	name     string // unique within its group; becomes the file name
	data     []byte
	mustFail bool   // the input is broken beyond repair: an error is required
	source   string // the intact file it was made from (memory baseline)
	big      bool   // a corpus file: longer timeout
}

// placeRE matches the part of an error message that says where the
// problem is: an offset, a section, a unit, a DIE.
var placeRE = regexp.MustCompile(`offset 0x[0-9a-f]+|section |\.debug_[a-z_]+|\.symtab|\.BTF_ids|CU \d+|unit \d+|DIE 0x[0-9a-f]+|\+0x[0-9a-f]+|line \d+|:\d+:|type \d+|type \[\d+\]`)

// encodeResult is the outcome of one in-process encode.
type encodeResult struct {
	err      error
	panicked any
	stack    []byte
	alloc    uint64 // bytes allocated during the encode
	types    int
}

var (
	engineOnce sync.Once
	sharedEng  *engine.Engine
	engineErr  error
)

// policy returns the default policy engine, compiled once: the cases only
// differ in their input.
func policy(tb testing.TB) *engine.Engine {
	tb.Helper()
	engineOnce.Do(func() {
		sharedEng, engineErr = engine.New(context.Background(), engine.Config{Features: features.Default()})
	})
	if engineErr != nil {
		tb.Fatal(engineErr)
	}
	return sharedEng
}

// inProcess serializes the in-process encodes, so that each one's
// allocations can be measured.
var inProcess sync.Mutex

// encodeInProcess runs encode.Encode and Marshal, as the CLI does, and
// measures the bytes allocated.
func encodeInProcess(tb testing.TB, path string) (r encodeResult) {
	eng := policy(tb)
	inProcess.Lock()
	defer inProcess.Unlock()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	func() {
		defer func() {
			if p := recover(); p != nil {
				r.panicked, r.stack = p, debug.Stack()
			}
		}()
		res, err := encode.Encode(path, encode.Options{Features: features.Default(), Jobs: 2, Policy: eng})
		if err != nil {
			r.err = err
			return
		}
		if _, err := res.Types.Marshal(binary.LittleEndian); err != nil {
			r.err = fmt.Errorf("%s: marshal: %w", path, err)
			return
		}
		r.types = res.Types.Len()
	}()
	runtime.ReadMemStats(&after)
	r.alloc = after.TotalAlloc - before.TotalAlloc
	return r
}

// cliResult is the outcome of one run of the btfgate command.
type cliResult struct {
	exit     int
	stdout   string
	stderr   string
	maxRSS   int64 // bytes; 0 when it could not be measured
	timedOut bool
	duration time.Duration
}

// cliVirtualLimit caps the address space of the CLI runs (ulimit -v), so
// that an allocation driven by an unchecked count fails fast instead of
// taking the machine's memory. Go reserves address space generously; 4 GiB
// leaves room for mapping a corpus kernel.
const cliVirtualLimit = 4 << 30

// timeCmd is GNU time, which measures the command's own peak RSS: it
// starts the command with fork, so the figure is the command's alone. The
// ru_maxrss of a direct child of this test process is not: os/exec starts
// children sharing the parent's memory until exec, and Linux carries that
// memory's high-water mark into the child's ru_maxrss.
const timeCmd = "/usr/bin/time"

// runCLI runs the btfgate command with args under the address-space limit
// and a timeout.
func runCLI(tb testing.TB, timeout time.Duration, args ...string) cliResult {
	tb.Helper()
	return runCLIEnv(tb, timeout, nil, args...)
}

// runCLIEnv is runCLI with env added to the command's environment. The
// command runs in a process group of its own, killed whole on the
// timeout. Its peak RSS is measured by timeCmd when that is installed.
func runCLIEnv(tb testing.TB, timeout time.Duration, env []string, args ...string) cliResult {
	tb.Helper()
	bin := cli(tb)
	if runtime.GOOS != "linux" {
		tb.Skip("the CLI cases run the command under ulimit -v and GNU time, on Linux")
	}
	rssFile, err := os.CreateTemp("", "brokentest-rss-")
	if err != nil {
		tb.Fatal(err)
	}
	rssFile.Close()
	defer os.Remove(rssFile.Name())
	measure := ""
	if _, err := os.Stat(timeCmd); err == nil {
		measure = fmt.Sprintf("%s -f %%M -o '%s' ", timeCmd, rssFile.Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	script := fmt.Sprintf(`ulimit -v %d && exec %s"$0" "$@"`, cliVirtualLimit/1024, measure)
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, bin}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	r := cliResult{stdout: out.String(), stderr: errb.String(), duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
		if r.exit < 0 {
			r.exit = 128 // killed by a signal
		}
	default:
		tb.Fatalf("running %s: %v", bin, err)
	}
	if ctx.Err() != nil {
		r.timedOut = true
	}
	if measure != "" && !r.timedOut {
		r.maxRSS = readMaxRSS(tb, rssFile.Name())
	}
	return r
}

// readMaxRSS reads what timeCmd wrote: its last line is the peak RSS in
// KiB (a line before it may say how the command ended).
func readMaxRSS(tb testing.TB, path string) int64 {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil || kb <= 0 {
		tb.Fatalf("%s: no peak RSS in %q", timeCmd, b)
	}
	return kb << 10
}

// baseline is what encoding an intact source costs.
type baseline struct {
	alloc  uint64
	maxRSS int64
}

var (
	baselineMu sync.Mutex
	baselines  = map[string]baseline{}
)

// baselineOf measures (once) the intact source: bytes allocated in
// process and the CLI's peak RSS.
func baselineOf(tb testing.TB, source string, big bool) baseline {
	tb.Helper()
	baselineMu.Lock()
	defer baselineMu.Unlock()
	if b, ok := baselines[source]; ok {
		return b
	}
	r := encodeInProcess(tb, source)
	if r.panicked != nil {
		tb.Fatalf("intact %s panicked: %v\n%s", source, r.panicked, r.stack)
	}
	out := filepath.Join(tb.TempDir(), "baseline.btf")
	c := runCLI(tb, timeoutFor(big), "encode", "--summary=none", "-o", out, source)
	b := baseline{alloc: r.alloc, maxRSS: c.maxRSS}
	baselines[source] = b
	return b
}

var (
	honestMu  sync.Mutex
	honestRSS = map[string]int64{}
)

// honestPeak measures (once per key) the peak RSS of an honest command:
// the one a case's command was made from, on intact inputs.
func honestPeak(tb testing.TB, key string, big bool, args ...string) int64 {
	tb.Helper()
	honestMu.Lock()
	defer honestMu.Unlock()
	if rss, ok := honestRSS[key]; ok {
		return rss
	}
	r := runCLI(tb, timeoutFor(big), args...)
	if r.exit != 0 {
		tb.Fatalf("honest run %v: exit %d: %s", args, r.exit, r.stderr)
	}
	honestRSS[key] = r.maxRSS
	return r.maxRSS
}

func timeoutFor(big bool) time.Duration {
	if big {
		return 5 * time.Minute
	}
	return time.Minute
}

// Memory bounds: a broken input may cost a few times what the intact one
// does, never an allocation sized by a count read from the file.
// In process, a broken input may also allocate in proportion to its size
// (a function with 70000 parameters is 70000 facts for the policies).
// The CLI's peak RSS may be at most twice the honest work's (the same
// command on the intact input, or an honest input of the same size) plus
// rssSlack, which absorbs the runtime's own variation on small inputs.
const (
	allocFactor  = 4
	allocSlack   = 64 << 20
	allocPerByte = 256
	rssFactor    = 2
	rssSlack     = 16 << 20
)

// runCases runs every case through the CLI and encode.Encode and checks
// how each one ends. Cases run in parallel (-parallel); the in-process
// encodes, whose allocations are measured, one at a time.
func runCases(t *testing.T, group string, cases []brokenCase) {
	t.Helper()
	var mu sync.Mutex
	tried, rejected := 0, 0
	seen := map[string]bool{}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			if seen[c.name] {
				t.Fatalf("%s: duplicate case name %s", group, c.name)
			}
			seen[c.name] = true
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				failed := runCase(t, group, c)
				summary.addCase(group, c.name, failed)
				mu.Lock()
				defer mu.Unlock()
				tried++
				if failed {
					rejected++
				}
			})
		}
	})
	t.Logf("%s: %d cases, %d rejected with an error, %d accepted", group, tried, rejected, tried-rejected)
}

// fileName makes a case name usable as a file name.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
}

// runCase checks one case of group and reports whether the encode failed.
func runCase(t *testing.T, group string, c brokenCase) bool {
	base := baselineOf(t, c.source, c.big)
	dir := t.TempDir()
	in := filepath.Join(dir, "in", fileName(c.name)+".elf")
	outDir := filepath.Join(dir, "out")
	out := filepath.Join(outDir, "out.btf")
	for _, d := range []string{filepath.Dir(in), outDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(in, c.data, 0o644); err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("BROKENTEST_KEEP"); keep != "" {
		// Keep the inputs for reproducing a failure by hand.
		if err := os.WriteFile(filepath.Join(keep, filepath.Base(in)), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The CLI first, in its own process under a memory limit and a
	// timeout: a crash or a runaway allocation there must not take the
	// test binary down.
	cr := runCLI(t, timeoutFor(c.big), "encode", "--summary=none", "-o", out, in)
	switch {
	case cr.timedOut:
		t.Fatalf("btfgate encode %s: no result after %v (hang?)", in, cr.duration)
	case cr.exit != 0 && cr.exit != 1:
		t.Fatalf("btfgate encode %s: exit status %d (crash):\n%s", in, cr.exit, head(cr.stderr, 40))
	}
	summary.notePeak(classOf(group, c.name), c.name, cr.maxRSS, base.maxRSS)
	if lim := rssFactor*base.maxRSS + rssSlack; cr.maxRSS > lim {
		t.Errorf("btfgate encode %s: peak RSS %d MiB, over the bound %d MiB (honest work: %d MiB)",
			in, cr.maxRSS>>20, lim>>20, base.maxRSS>>20)
	}

	r := encodeInProcess(t, in)
	if r.panicked != nil {
		t.Fatalf("encode.Encode(%s) panicked: %v\n%s", in, r.panicked, r.stack)
	}
	summary.noteAlloc(c.name, r.alloc, base.alloc)
	if lim := allocFactor*base.alloc + allocSlack + allocPerByte*uint64(len(c.data)); r.alloc > lim {
		t.Errorf("encode.Encode(%s) allocated %d MiB, over the bound %d MiB (intact input: %d MiB)",
			in, r.alloc>>20, lim>>20, base.alloc>>20)
	}

	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}

	if r.err == nil {
		if c.mustFail {
			t.Errorf("encode.Encode(%s) succeeded (%d types) on an input that must be rejected", in, r.types)
		}
		if cr.exit != 0 {
			t.Errorf("encode.Encode(%s) succeeded but btfgate encode exited %d: %s", in, cr.exit, cr.stderr)
		}
		if len(left) != 1 || left[0] != "out.btf" {
			t.Errorf("after a successful encode the output directory holds %q, want [out.btf]", left)
		}
		checkWrittenBTF(t, out)
		return false
	}

	msg := r.err.Error()
	if !strings.Contains(msg, in) {
		t.Errorf("error does not name the file %s: %s", in, msg)
	}
	if !placeRE.MatchString(strings.ReplaceAll(msg, in, "")) {
		t.Errorf("error does not say where the problem is (offset, section, CU, DIE): %s", msg)
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans several lines: %q", msg)
	}
	if n := strings.Count(msg, in); n > 1 {
		t.Errorf("error names the file %d times: %s", n, msg)
	}
	if cr.exit == 0 {
		t.Errorf("encode.Encode failed (%v) but btfgate encode exited 0", r.err)
	} else if want := "btfgate: " + msg + "\n"; cr.stderr != want {
		t.Errorf("btfgate encode stderr:\n%q\nwant one line:\n%q", cr.stderr, want)
	}
	if cr.stdout != "" {
		t.Errorf("btfgate encode wrote to stdout on failure: %q", cr.stdout)
	}
	if len(left) != 0 {
		t.Errorf("failed encode left %q in the output directory", left)
	}
	return true
}

// head returns the first n lines of s.
func head(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
