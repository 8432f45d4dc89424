//go:build !linux

package elffile

import (
	"io"
	"os"
)

// mapFile reads the file into memory where mmap is not wired up.
func mapFile(fh *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(fh, b); err != nil {
		return nil, err
	}
	return b, nil
}

func unmapFile([]byte) error { return nil }

func adviseWillNeed([]byte) {}

func adviseDontNeed([]byte) {}

func mapCopy(int) ([]byte, bool) { return nil, false }

func unmap([]byte) {}

func adviseRandom(*os.File) {}
