//go:build !linux

package main

// releaseInitCode does nothing where the executable's pages cannot be
// let go (see codepages_linux.go).
func releaseInitCode() {}
