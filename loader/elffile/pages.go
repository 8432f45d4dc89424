package elffile

import (
	"os"
	"sync"
	"unsafe"
)

// pages owns the memory a File hands out and every release of it: the
// read-only image (a mapping of the file, or the caller's bytes) and the
// private copies relocated sections are made in. Nothing else in the
// package maps, advises or unmaps.
//
// A page of the image that is released stays valid: reading it again
// faults it back in from the page cache. A page of a copy that is
// discarded is gone and reads as zeros.
type pages struct {
	image  []byte   // the whole file
	mapped bool     // image is a mapping that close releases
	fh     *os.File // the mapped file, for copies by pread; closed by close

	// copies are the private copies made outside the Go heap (see
	// newCopy); close unmaps them.
	mu     sync.Mutex
	copies [][]byte
}

// section returns the bytes of [off, off+size) of the image, or false if
// the range lies outside it. The slice is capacity-limited, so appending
// to it copies.
func (p *pages) section(off, size uint64) ([]byte, bool) {
	n := uint64(len(p.image))
	if off > n || size > n-off {
		return nil, false
	}
	end := off + size
	return p.image[off:end:end], true
}

// willNeed asks for b, part of the image, to be read in the background: a
// caller walking a large section then does not fault it in page by page
// from a cold page cache. It is only a hint.
func (p *pages) willNeed(b []byte) {
	if !p.mapped || !p.inImage(b) {
		return
	}
	// From the start of b's first page: advice takes whole pages.
	off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(p.image)))
	start := off &^ uintptr(os.Getpagesize()-1)
	adviseWillNeed(p.image[start : off+uintptr(len(b))])
}

// copyTo fills dst, a private copy, with b, part of the image, at file
// offset off. Reading the file (pread) costs less than copying the mapping,
// which faults in every page of the source as well as of the copy.
func (p *pages) copyTo(dst, b []byte, off uint64) {
	if p.fh != nil {
		if n, err := p.fh.ReadAt(dst, int64(off)); n == len(dst) && err == nil {
			return
		}
	}
	copy(dst, b) // the mapping was checked by Open; the file may not be
}

// release lets go the whole pages of b if b lies in the mapped image;
// anything else is left alone. b stays valid.
func (p *pages) release(b []byte) {
	if !p.mapped || !p.inImage(b) {
		return
	}
	adviseDontNeed(wholePages(b))
}

// inImage reports whether b lies wholly inside the image.
func (p *pages) inImage(b []byte) bool {
	if len(b) == 0 || len(p.image) == 0 {
		return false
	}
	return within(b, p.image)
}

// newCopy returns n bytes of memory for a private copy of a section, owned
// until close: an anonymous mapping where the system has them, so that
// discard can give back the part a caller is done with, which memory the
// Go heap holds cannot do.
func (p *pages) newCopy(n int) []byte {
	b, mapped := mapCopy(n)
	if !mapped {
		return make([]byte, n) // the heap's: discard leaves it alone
	}
	p.mu.Lock()
	p.copies = append(p.copies, b)
	p.mu.Unlock()
	return b
}

// isCopy reports whether b lies in one of the private copies.
func (p *pages) isCopy(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.copies {
		if within(b, c) {
			return true
		}
	}
	return false
}

// discard gives back the whole pages of b if b lies in a private copy;
// their bytes read as zeros afterwards. Anything else is left alone.
func (p *pages) discard(b []byte) {
	if p.isCopy(b) {
		adviseDontNeed(wholePages(b))
	}
}

// close unmaps the copies and the image and closes the file.
func (p *pages) close() error {
	p.mu.Lock()
	for _, c := range p.copies {
		unmap(c)
	}
	p.copies = nil
	p.mu.Unlock()
	if p.fh != nil {
		p.fh.Close()
		p.fh = nil
	}
	image := p.image
	p.image = nil
	if p.mapped {
		return unmapFile(image)
	}
	return nil
}

// within reports whether b lies wholly inside outer.
func within(b, outer []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(outer)))
	return p >= base && p-base+uintptr(len(b)) <= uintptr(len(outer))
}

// wholePages returns the part of b made of whole pages.
func wholePages(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	page := uintptr(os.Getpagesize())
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + page - 1) &^ (page - 1)
	end := (p + uintptr(len(b))) &^ (page - 1)
	if end <= start {
		return nil
	}
	return b[start-p : end-p]
}

// Release tells the file that b, a slice of section data it returned
// zero-copy, will not be read again soon, so that its pages need not stay
// resident: a long walk over .debug_info then holds only the part being
// read. b stays valid; reading it again just faults the pages back in.
// Data that is not part of the file's mapping (decompressed or relocated
// copies) is left alone.
func (f *File) Release(b []byte) {
	if !f.closed {
		f.pages.release(b)
	}
}

// IsCopy reports whether b lies in a private copy the File made of a
// section (a relocated one) in memory of its own, which Discard can give
// back.
func (f *File) IsCopy(b []byte) bool { return f.pages.isCopy(b) }

// Discard gives back the whole pages of b, a part of a private copy the
// File made of a section (see IsCopy), that the caller will not read
// again: unlike Release's, their bytes are gone, and read as zeros. Other
// data is left alone.
func (f *File) Discard(b []byte) {
	if !f.closed {
		f.pages.discard(b)
	}
}

// DropPages drops the whole pages of b, a part of a mapping MapFile
// returned, from the process's resident memory: a caller that has copied
// what it needs from them need not hold them twice. b stays valid; reading
// it again faults the pages back in from the file.
func DropPages(b []byte) { adviseDontNeed(wholePages(b)) }
