//go:build linux

package elffile

import (
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps size bytes of fh read-only. The mapping outlives fh.
func mapFile(fh *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(fh.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(b []byte) error { return syscall.Munmap(b) }

// adviseWillNeed asks the kernel to start reading data[off:off+n] of a
// mapping in the background, so that a caller walking a large section does
// not fault it in page by page from a cold page cache. It is only a hint.
func adviseWillNeed(data []byte, off, n uint64) {
	page := uint64(os.Getpagesize())
	start := off &^ (page - 1)
	end := off + n
	if n == 0 || end > uint64(len(data)) {
		return
	}
	_ = syscall.Madvise(data[start:end], syscall.MADV_WILLNEED)
}

// adviseDontNeed drops the whole pages of data[off:off+n] of a read-only
// file mapping from the process: they are read again from the page cache
// if touched later.
func adviseDontNeed(data []byte, off, n uint64) {
	if n == 0 || off+n > uint64(len(data)) {
		return
	}
	dropPages(data[off : off+n])
}

// dropPages drops the pages that lie wholly inside b, a part of a read-only
// file mapping, from the process.
func dropPages(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + page - 1) &^ (page - 1)
	end := (p + uintptr(len(b))) &^ (page - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], syscall.MADV_DONTNEED)
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

// unmapCopy releases a copy mapCopy returned.
func unmapCopy(b []byte) { _ = syscall.Munmap(b) }

// discardPages gives back the pages wholly inside b, part of an anonymous
// private mapping: they read as zeros afterwards.
func discardPages(b []byte) { dropPages(b) }
