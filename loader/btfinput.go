package loader

import (
	"bytes"
	"fmt"
	"io"

	"github.com/btfgate/btfgate/internal/inputs"
	"github.com/btfgate/btfgate/loader/elffile"
)

// ReadBTF returns the raw BTF held by path: the file itself when it starts
// with the BTF magic (either byte order), else the .BTF section of an ELF
// file. The bytes are a copy that outlives any mapping. Every error names
// path once.
func ReadBTF(path string) ([]byte, error) {
	data, raw, err := readRawBTF(path)
	if err != nil || raw {
		return data, err
	}
	// An ELF file is mapped, and only .BTF is copied.
	f, err := elffile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: neither raw BTF (no 0xeb9f magic) nor ELF: %w", path, unnamed(err))
	}
	defer f.Close()
	sec := f.Section(".BTF")
	if sec == nil {
		return nil, fmt.Errorf("%s: ELF file without a .BTF section", path)
	}
	b, err := f.SectionData(sec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unnamed(err))
	}
	return bytes.Clone(b), nil
}

// readRawBTF reads the file at path whole if it starts with the BTF magic
// (raw); other files are left unread. A raw file is read, not mapped
// (cheaper than mapping and copying it: docs/performance.md).
func readRawBTF(path string) (data []byte, raw bool, err error) {
	fh, err := inputs.Open(path)
	if err != nil {
		return nil, false, err // an *fs.PathError, which names path
	}
	defer fh.Close()
	var magic [2]byte
	if _, err := io.ReadFull(fh, magic[:]); err != nil || !isRawBTF(magic[:]) {
		return nil, false, nil
	}
	st, err := fh.Stat()
	if err != nil {
		return nil, false, err
	}
	data = make([]byte, st.Size())
	if _, err := fh.ReadAt(data, 0); err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// isRawBTF reports whether data starts with the BTF magic, in either byte
// order.
func isRawBTF(data []byte) bool {
	return len(data) >= 2 && (bytes.HasPrefix(data, []byte{0x9f, 0xeb}) || bytes.HasPrefix(data, []byte{0xeb, 0x9f}))
}

// unnamed returns err without the file name an *elffile.FormatError
// carries, for callers that put the name first themselves.
func unnamed(err error) error {
	if fe, ok := err.(*elffile.FormatError); ok && fe.File != "" {
		c := *fe
		c.File = ""
		return &c
	}
	return err
}
