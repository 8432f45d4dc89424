package elffile

// SectionData returns the contents of s, a section of f.
//
// Uncompressed data is returned without copying: it is a slice of the
// mapping (capacity-limited, so appending copies), valid until Close, and
// must not be modified. SHF_COMPRESSED data (ELFCOMPRESS_ZLIB or
// ELFCOMPRESS_ZSTD) is decompressed into a new slice on every call, after
// checking the compression header and bounding the claimed size. SHT_NOBITS
// and SHT_NULL sections have no data and give nil.
func (f *File) SectionData(s *Section) ([]byte, error) {
	if f.closed {
		return nil, f.errClosed()
	}
	raw, err := f.rawData(s)
	if err != nil || raw == nil {
		return nil, err
	}
	if s.Flags&SHF_COMPRESSED != 0 {
		return f.decompressSection(s, raw)
	}
	return raw, nil
}

// rawData returns the bytes of s as stored in the file. The range was
// checked by Open, but is checked again because Sections is exported.
func (f *File) rawData(s *Section) ([]byte, error) {
	if s == nil {
		return nil, &FormatError{File: f.Path, Msg: "nil section"}
	}
	if s.Type == SHT_NOBITS || s.Type == SHT_NULL {
		return nil, nil
	}
	size := uint64(len(f.data))
	if s.Offset > size || s.Size > size-s.Offset {
		return nil, &FormatError{File: f.Path, Section: s.displayName(), Offset: 0,
			Msg: "section data lies outside the file"}
	}
	end := s.Offset + s.Size
	return f.data[s.Offset:end:end], nil
}
