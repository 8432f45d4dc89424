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
	fh, err := os.Open(path)
	if err != nil {
		return nil, err // an *fs.PathError, which names path
	}
	var magic [2]byte
	_, rerr := io.ReadFull(fh, magic[:])
	fh.Close()
	if rerr == nil && (magic == [2]byte{0x9f, 0xeb} || magic == [2]byte{0xeb, 0x9f}) {
		return os.ReadFile(path)
	}
	// An ELF file (vmlinux: 300 MB) is mapped, and only .BTF is copied.
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
