package loader

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/btfgate/btfgate/loader/elffile"
)

// ReadBTF returns the raw BTF held by path: the file itself when it starts
// with the BTF magic (either byte order), else the .BTF section of an ELF
// file. The bytes are a copy that outlives any mapping. Every error names
// path once.
func ReadBTF(path string) ([]byte, error) {
	// A raw file is read: mapping and copying it took 5 % longer on a
	// module's encode (4 MB of the kernel's BTF). An ELF file is mapped.
	if rawFile(path) {
		if data, err := os.ReadFile(path); err == nil && isRawBTF(data) {
			return data, nil
		}
	}
	m, err := mapBTF(path)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return bytes.Clone(m.Data), nil
}

// mappedBTF is the raw BTF of a file, mapped (see mapBTF).
type mappedBTF struct {
	Data    []byte // valid until Close
	mapping []byte
}

// Close releases the mapping.
func (m *mappedBTF) Close() error { return elffile.Unmap(m.mapping) }

// mapBTF maps the file at path; Data is the mapped file or its .BTF
// section (a copy when the section is compressed). An ELF file such as
// vmlinux (300 MB) is mapped, not read: only .BTF is copied.
func mapBTF(path string) (*mappedBTF, error) {
	data, err := elffile.MapFile(path)
	if err != nil {
		return nil, unnamedAfter(path, err)
	}
	m := &mappedBTF{Data: data, mapping: data}
	if isRawBTF(data) {
		return m, nil
	}
	f, err := elffile.NewFile(path, data)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: neither raw BTF (no 0xeb9f magic) nor ELF: %w", path, unnamed(err))
	}
	sec := f.Section(".BTF")
	if sec == nil {
		m.Close()
		return nil, fmt.Errorf("%s: ELF file without a .BTF section", path)
	}
	if m.Data, err = f.SectionData(sec); err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: %w", path, unnamed(err))
	}
	return m, nil
}

// rawFile reports whether the file at path starts with the BTF magic.
func rawFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [2]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && isRawBTF(magic[:])
}

// isRawBTF reports whether data starts with the BTF magic, in either byte
// order.
func isRawBTF(data []byte) bool {
	return len(data) >= 2 && (bytes.HasPrefix(data, []byte{0x9f, 0xeb}) || bytes.HasPrefix(data, []byte{0xeb, 0x9f}))
}

// unnamedAfter puts path first in an error of MapFile: an *fs.PathError
// names it already.
func unnamedAfter(path string, err error) error {
	if fe, ok := err.(*elffile.FormatError); ok {
		return fmt.Errorf("%s: %w", path, unnamed(fe))
	}
	return err
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
