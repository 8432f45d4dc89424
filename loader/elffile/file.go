package elffile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/btfgate/btfgate/internal/inputs"
)

// File is an open ELF object. Its exported fields are filled by Open or
// NewFile and must not be modified. The methods may be called from several
// goroutines at once, but not concurrently with Close.
type File struct {
	Path      string
	Class     Class            // Class32 or Class64
	ByteOrder binary.ByteOrder // from EI_DATA
	Type      uint16           // e_type: ET_REL, ET_EXEC, ET_DYN, ...
	Machine   uint16           // e_machine: EM_X86_64, EM_AARCH64, ...
	Sections  []Section        // in index order; Sections[i].Index == i

	data   []byte // the whole image (pages.image), for the headers
	pages  pages  // the image and the copies, and their release
	limits Limits // on decompression
	table  SectionTable
	layout []uint64 // ET_REL: made-up load address per section (see LayOut)
	closed bool
	order  endian
}

// Section is one section header.
type Section struct {
	Index     int
	Name      string
	Type      uint32 // SHT_*
	Flags     uint64 // SHF_*
	Addr      uint64
	Offset    uint64 // file offset of the (possibly compressed) data
	Size      uint64 // size in the file (compressed size for SHF_COMPRESSED)
	Link      uint32
	Info      uint32
	Addralign uint64
	Entsize   uint64
}

// Symbol is one entry of the symbol table.
type Symbol struct {
	Name        string
	Value, Size uint64
	Info, Other uint8
	// Section is the index of the section the symbol is defined in, with
	// SHN_XINDEX resolved through SHT_SYMTAB_SHNDX. The reserved values
	// SHN_UNDEF, SHN_ABS, SHN_COMMON (and other values >= SHN_LORESERVE)
	// are kept as they are.
	Section uint32
}

// Type returns the symbol type, STT_*.
func (s Symbol) Type() uint8 { return s.Info & 0xf }

// Bind returns the symbol binding, STB_*.
func (s Symbol) Bind() uint8 { return s.Info >> 4 }

// Open maps the ELF file at path read-only and validates its header and
// section table. Only the pages holding those are read. The caller must
// Close the File; slices of section data returned without copying are
// invalid after Close. Decompression is bounded by DefaultLimits.
func Open(path string) (*File, error) { return OpenLimited(path, DefaultLimits()) }

// OpenLimited is Open with limits on decompression.
func OpenLimited(path string, lim Limits) (*File, error) {
	fh, err := inputs.Open(path)
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if !keep {
			fh.Close()
		}
	}()
	data, err := mapWhole(fh, path, eiNident)
	if err != nil {
		return nil, err
	}
	f, err := parse(path, data)
	if err != nil {
		_ = unmapFile(data)
		return nil, err
	}
	f.pages.mapped, f.pages.fh, f.limits, keep = true, fh, lim, true
	return f, nil
}

// NewFile is Open over an ELF image already in memory. path is only used in
// error messages. data must not be modified while the File is in use.
// Decompression is bounded by DefaultLimits.
func NewFile(path string, data []byte) (*File, error) {
	return parse(path, data)
}

// Close releases the mapping. Section data returned without copying, which
// includes every slice from SectionData and DebugSections that was neither
// decompressed nor relocated, must not be used afterwards. Names (sections,
// symbols) are copies and stay valid.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	f.data = nil
	return f.pages.close()
}

// Section returns the first section named name, or nil.
func (f *File) Section(name string) *Section {
	for i := range f.Sections {
		if f.Sections[i].Name == name {
			return &f.Sections[i]
		}
	}
	return nil
}

// ErrClosed is wrapped by the errors of methods called after Close.
var ErrClosed = errors.New("elffile: file already closed")

func (f *File) errClosed() error { return fmt.Errorf("%s: %w", f.Path, ErrClosed) }

// MapFile maps the whole file at path read-only (reads it where there is
// no mmap), for callers that read raw data besides ELF files; release the
// mapping with Unmap. An empty file gives nil.
func MapFile(path string) ([]byte, error) {
	fh, err := inputs.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return mapWhole(fh, path, 0)
}

// ReadRandomly turns off read-ahead on fh, a file that is read in pieces
// and mapped: what a read brings into the page cache then comes in the
// smallest folios, where read-ahead brings large ones (here up to 1 MiB),
// and this kernel (6.18) maps a large folio whole into a mapping that
// touches any byte of it. A mapping of the file then makes resident, per
// first read, the fault-around window (64 KiB) and no more. It is only a
// hint.
func ReadRandomly(fh *os.File) { adviseRandom(fh) }

// MapOpen is MapFile for a file the caller opened: the mapping is of
// that file, whatever its path names by now. fh may be closed after.
func MapOpen(fh *os.File) ([]byte, error) { return mapWhole(fh, fh.Name(), 0) }

// mapWhole maps all of fh, a regular file of at least minSize bytes (an
// ELF file's identification, for Open); an empty one gives nil.
func mapWhole(fh *os.File, path string, minSize int64) ([]byte, error) {
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	switch size := st.Size(); {
	case !st.Mode().IsRegular():
		return nil, &FormatError{File: path, Msg: "not a regular file"}
	case size < minSize:
		return nil, &FormatError{File: path, Msg: fmt.Sprintf("file is %d bytes, too small for an ELF identification", size)}
	case uint64(size) > math.MaxInt:
		return nil, &FormatError{File: path, Msg: fmt.Sprintf("file is %d bytes, too large to map", size)}
	case size == 0:
		return nil, nil
	}
	data, err := mapFile(fh, int(st.Size()))
	if err != nil {
		return nil, fmt.Errorf("elffile: mapping %s: %w", path, err)
	}
	return data, nil
}

// Unmap releases a mapping made by MapFile.
func Unmap(data []byte) error {
	if data == nil {
		return nil
	}
	return unmapFile(data)
}
