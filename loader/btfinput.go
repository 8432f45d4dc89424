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
	f, b, err := elfBTF(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return bytes.Clone(b), nil
}

// MapBTF is ReadBTF without the copy, for a caller that only compares or
// hashes the bytes: the raw BTF held by path, mapped (a decompressed copy
// if the section is compressed), valid until done is called. Faults on the
// mapping (the file truncated meanwhile) are the caller's to guard
// (elffile.GuardFaults).
func MapBTF(path string) (b []byte, done func() error, err error) {
	fh, err := inputs.Open(path)
	if err != nil {
		return nil, nil, err // an *fs.PathError, which names path
	}
	var magic [2]byte
	_, rerr := io.ReadFull(fh, magic[:])
	fh.Close()
	if rerr == nil && isRawBTF(magic[:]) {
		data, err := elffile.MapFile(path)
		if err != nil {
			return nil, nil, err
		}
		return data, func() error { return elffile.Unmap(data) }, nil
	}
	f, b, err := elfBTF(path)
	if err != nil {
		return nil, nil, err
	}
	return b, f.Close, nil
}

// elfBTF opens the ELF file at path and returns it with the data of its
// .BTF section; the caller closes it when done with the data.
func elfBTF(path string) (*elffile.File, []byte, error) {
	f, err := elffile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: neither raw BTF (no 0xeb9f magic) nor ELF: %w", path, unnamed(err))
	}
	sec := f.Section(".BTF")
	if sec == nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: ELF file without a .BTF section", path)
	}
	b, err := f.SectionData(sec)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, unnamed(err))
	}
	return f, b, nil
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
