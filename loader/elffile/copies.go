package elffile

import "unsafe"

// newCopy returns n bytes of memory for a private copy of a section, which
// the File owns until Close: an anonymous mapping where the system has
// them, so that Discard can give back the part a caller is done with (a
// module's relocated .debug_info, unit by unit as the units are walked),
// which memory the Go heap holds cannot do.
func (f *File) newCopy(n int) []byte {
	b, mapped := mapCopy(n)
	if !mapped {
		return make([]byte, n) // the heap's: Discard leaves it alone
	}
	f.copiesMu.Lock()
	f.copies = append(f.copies, b)
	f.copiesMu.Unlock()
	return b
}

// IsCopy reports whether b lies in a private copy the File made of a
// section (a relocated one) in memory of its own, which Discard can give
// back.
func (f *File) IsCopy(b []byte) bool { return f.copyOf(b) != nil }

// copyOf returns the private copy b lies in, or nil.
func (f *File) copyOf(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	f.copiesMu.Lock()
	defer f.copiesMu.Unlock()
	for _, c := range f.copies {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(c)))
		if p >= base && p-base+uintptr(len(b)) <= uintptr(len(c)) {
			return c
		}
	}
	return nil
}

// Discard gives back the whole pages of b, a part of a private copy the
// File made of a section (see IsCopy), that the caller will not read
// again: unlike Release's, their bytes are gone, and read as zeros. Other
// data is left alone.
func (f *File) Discard(b []byte) {
	if f.closed || f.copyOf(b) == nil {
		return
	}
	discardPages(b)
}
