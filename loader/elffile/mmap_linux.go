//go:build linux

package elffile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The system calls behind pages; callers pass whole pages of a mapping.

// mapFile maps size bytes of fh read-only. The mapping outlives fh.
func mapFile(fh *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(fh.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(b []byte) error { return syscall.Munmap(b) }

// adviseWillNeed starts reading b in the background. It is only a hint.
func adviseWillNeed(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_WILLNEED)
	}
}

// adviseDontNeed drops b from the process: a file mapping's pages are read
// again from the page cache if touched, an anonymous one's read as zeros.
func adviseDontNeed(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}

// mapCopy returns n zeroed bytes of an anonymous private mapping; mapped
// is false, and b nil, if there is none to be had.
func mapCopy(n int) (b []byte, mapped bool) {
	if n <= 0 {
		return nil, false
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	return b, err == nil
}

// unmap releases a copy mapCopy returned.
func unmap(b []byte) { _ = syscall.Munmap(b) }

// adviseRandom turns off read-ahead on fh. It is only a hint.
func adviseRandom(fh *os.File) { _ = unix.Fadvise(int(fh.Fd()), 0, 0, unix.FADV_RANDOM) }
