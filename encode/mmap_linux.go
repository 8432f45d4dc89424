//go:build linux

package encode

import (
	"os"
	"syscall"
)

// mapReadOnly maps the whole of f read-only; the mapping outlives f.
func mapReadOnly(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
}

func unmap(b []byte) error { return syscall.Munmap(b) }
