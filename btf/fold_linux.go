//go:build linux

package btf

import (
	"syscall"
	"unsafe"
)

// pageSize is the size of the pages releasePages gives back.
func pageSize() int { return syscall.Getpagesize() }

// releasePages tells the kernel that the n bytes at p (whole pages of a
// live Go object nothing reads any more) are not needed: their memory goes
// back to the system, and a read would find zeros. It returns n, or 0 if
// the kernel refused.
func releasePages(p unsafe.Pointer, n int) int {
	if err := syscall.Madvise(unsafe.Slice((*byte)(p), n), syscall.MADV_DONTNEED); err != nil {
		return 0
	}
	return n
}
