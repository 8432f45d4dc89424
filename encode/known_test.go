package encode

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/features"
)

// TestFixtureKnown encodes the known programs (testdata/fixtures/known):
// units that repeat each other's types. plain.gcc.exe's second unit
// repeats the first's types, which are dropped before the dedup; in
// twice.*.exe a third unit brings another struct foo after those copies
// were dropped, so the encode is done again keeping them. Either way the
// BTF equals pahole 1.31's.
func TestFixtureKnown(t *testing.T) {
	for _, c := range []struct {
		obj   string
		twice bool
	}{
		{"known/plain.gcc.exe", false},
		{"known/twice.gcc.exe", true},
		{"known/twice.clang19.exe", true},
	} {
		t.Run(c.obj, func(t *testing.T) {
			v := encodeFixture(t, c.obj, features.Default())
			switch {
			case c.twice && !strings.Contains(v.res.KnownRedone, `"foo"`):
				t.Errorf("encoded once (KnownRedone %q), want a second time for struct foo's two definitions", v.res.KnownRedone)
			case !c.twice && v.res.KnownRedone != "":
				t.Errorf("encoded twice (%s), want once", v.res.KnownRedone)
			case !c.twice && v.res.Known == 0:
				t.Errorf("no types dropped as copies; the second unit repeats the first's")
			}
			samePahole131BTF(t, v.res, filepath.Join(fixtureDir, filepath.Dir(c.obj), "expected", filepath.Base(c.obj)+".pahole-1.31.default.btf"))
		})
	}
}

// TestKnownRedoHooks: an encode done a second time (twice.gcc.exe) calls
// Opened once, Progress through the units in order each time, the second
// time from 1 again, and Decoded after the last unit each time.
func TestKnownRedoHooks(t *testing.T) {
	opened := 0
	var done []int
	total := 0
	opts := Options{Features: features.Default(), Jobs: 2,
		Opened: func(bool, int) { opened++ },
		Progress: func(d, n int) {
			done = append(done, d)
			total = n
		},
		Decoded: func() { done = append(done, 0) },
	}
	res, err := Encode(fixturePath(t, "known/twice.gcc.exe"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.KnownRedone == "" {
		t.Fatal("encoded once: the test needs the second run")
	}
	if opened != 1 {
		t.Errorf("Opened called %d times, want 1", opened)
	}
	var want []int
	for range 2 {
		for d := 1; d <= total; d++ {
			want = append(want, d)
		}
		want = append(want, 0) // Decoded
	}
	if total == 0 || !slices.Equal(done, want) {
		t.Errorf("Progress and Decoded (0) reported %v (of %d), want %v", done, total, want)
	}
}
