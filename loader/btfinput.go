package loader

import (
	"bytes"
	"fmt"
	"os"

	"github.com/btfgate/btfgate/loader/elffile"
)

// ReadBTF returns the raw BTF held by path: the file itself when it starts
// with the BTF magic (either byte order), else the .BTF section of an ELF
// file. The bytes are a copy that outlives any mapping. Every error names
// path once.
func ReadBTF(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // an *fs.PathError, which names path
	}
	if len(data) >= 2 && (bytes.HasPrefix(data, []byte{0x9f, 0xeb}) || bytes.HasPrefix(data, []byte{0xeb, 0x9f})) {
		return data, nil
	}
	// The ELF image gets no path: its errors would name it, and so do the
	// ones below, which would make it twice.
	f, err := elffile.NewFile("", data)
	if err != nil {
		return nil, fmt.Errorf("%s: neither raw BTF (no 0xeb9f magic) nor ELF: %w", path, err)
	}
	sec := f.Section(".BTF")
	if sec == nil {
		return nil, fmt.Errorf("%s: ELF file without a .BTF section", path)
	}
	b, err := f.SectionData(sec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return bytes.Clone(b), nil
}
