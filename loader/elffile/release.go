package elffile

import "unsafe"

// Release tells the file that b, a slice of section data it returned
// zero-copy, will not be read again soon, so that its pages need not stay
// resident: a long walk over .debug_info then holds only the part being
// read. b stays valid; reading it again just faults the pages back in.
// Data that is not part of the file's mapping (decompressed or relocated
// copies) is left alone.
func (f *File) Release(b []byte) {
	if !f.mapped || f.closed || len(b) == 0 || len(f.data) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(&f.data[0]))
	p := uintptr(unsafe.Pointer(&b[0]))
	if p < base || p-base+uintptr(len(b)) > uintptr(len(f.data)) {
		return
	}
	adviseDontNeed(f.data, uint64(p-base), uint64(len(b)))
}
