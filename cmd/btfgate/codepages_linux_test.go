//go:build linux

package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// codeRSS returns the resident kilobytes of the executable's code mapping
// (/proc/self/smaps).
func codeRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, kb := false, -1
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 6 && strings.Contains(fs[0], "-"):
			in = fs[1] == "r-xp" && fs[5] == exe
		case in && len(fs) >= 2 && fs[0] == "Rss:":
			kb, _ = strconv.Atoi(fs[1])
			in = false
		}
	}
	if kb < 0 {
		t.Skip("no code mapping of the executable in /proc/self/smaps")
	}
	return kb
}

// TestReleaseInitCode checks that the code pages mapped in before main are
// let go: the test binary, as btfgate, has run every package's
// initialisation by now.
func TestReleaseInitCode(t *testing.T) {
	if exe, err := os.Executable(); err != nil || !fixedAddress(exe) {
		t.Skip("the test binary is not a fixed-address executable: releaseInitCode leaves it alone")
	}
	before := codeRSS(t)
	releaseInitCode()
	after := codeRSS(t)
	t.Logf("code resident: %d KiB before, %d KiB after", before, after)
	if after >= before/2 {
		t.Errorf("code resident: %d KiB before the release, %d KiB after (want under half)", before, after)
	}
}
