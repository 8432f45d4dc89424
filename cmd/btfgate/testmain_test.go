package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the prepared bases of the tests' split encodes in a
// directory of their own, not the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "btfgate-base-cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(baseCacheEnv, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
