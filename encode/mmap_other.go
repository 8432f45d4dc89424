//go:build !linux

package encode

import (
	"io"
	"os"
)

// mapReadOnly reads the whole of f where there is no mmap here.
func mapReadOnly(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

func unmap([]byte) error { return nil }
