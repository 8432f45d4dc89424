package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDecodedRelease: the code pages go again after the decode for an
// input from a MiB to under collectAtLimitBelow, not for smaller or
// larger ones, nor for one that cannot be read.
func TestDecodedRelease(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		size    int64
		release bool
	}{
		{releaseDecodedFrom - 1, false},
		{releaseDecodedFrom, true},
		{collectAtLimitBelow - 1, true},
		{collectAtLimitBelow, false},
	} {
		path := filepath.Join(dir, "m.ko")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, c.size); err != nil {
			t.Fatal(err)
		}
		if got := decodedRelease(path) != nil; got != c.release {
			t.Errorf("decodedRelease(%d bytes) set: %v, want %v", c.size, got, c.release)
		}
	}
	if decodedRelease(filepath.Join(dir, "missing.ko")) != nil {
		t.Error("decodedRelease(missing file) set")
	}
}
