package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPolicyTimesIgnoreHostZone: a policy that reads the local time zone
// (time.clock with "Local") decides the same under any TZ, since btfgate
// runs in UTC; the outputs are byte-identical. It runs the built binary,
// since the zone is set up in main.
func TestPolicyTimesIgnoreHostZone(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "btfgate")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pol := filepath.Join(dir, "tz.rego")
	// At the epoch the local hour is 0 in UTC and 9 in Tokyo.
	src := "package btfgate.functions\n\nexclude.by_zone[id] contains \"local hour is not 0\" if {\n\tsome id, _ in input.functions\n\ttime.clock([0, \"Local\"])[0] != 0\n}\n"
	if err := os.WriteFile(pol, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var outs [][]byte
	for _, tz := range []string{"UTC", "Asia/Tokyo", "America/New_York"} {
		out := filepath.Join(dir, tz[:3]+".btf")
		cmd := exec.Command(bin, "encode", "--summary=none", "--policy", pol, "-o", out, fixture)
		cmd.Env = append(os.Environ(), "TZ="+tz)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("TZ=%s: %v\n%s", tz, err, msg)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			t.Errorf("output %d differs from the UTC one: the policy saw the host's zone", i)
		}
	}
}
