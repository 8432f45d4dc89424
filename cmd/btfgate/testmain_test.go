package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the prepared bases of the tests' split encodes, and the
// compiled default policies, in a directory of their own, not the user's
// cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "btfgate-base-cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(baseCacheEnv, dir)
	os.Setenv(policyCacheEnv, filepath.Join(dir, "policy"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
