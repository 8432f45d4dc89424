package btfdiff

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"

	"github.com/btfgate/btfgate/internal/inputs"
)

// elfMagic starts every ELF file.
const elfMagic = "\x7fELF"

// Load reads the BTF in path and returns its Set. path is raw BTF or an ELF
// file with a .BTF section. basePath is "" for base BTF, or the base (raw or
// ELF) that the split BTF in path extends; an ELF file with a .BTF.base
// section (distilled base) uses that when basePath is "".
func Load(path, basePath string) (*Set, error) {
	btf, distilled, err := readBTF(path)
	if err != nil {
		return nil, err
	}
	var base *table
	switch {
	case basePath != "":
		raw, _, err := readBTF(basePath)
		if err != nil {
			return nil, fmt.Errorf("base of %s: %w", path, err)
		}
		if base, err = decode(basePath, raw, nil); err != nil {
			return nil, fmt.Errorf("base of %s: %w", path, err)
		}
	case distilled != nil:
		if base, err = decode(path+"(.BTF.base)", distilled, nil); err != nil {
			return nil, err
		}
	}
	return newSetFromRaw(path, basePath, btf, base)
}

// FromBytes is Load for data held in memory: data is raw BTF or an ELF
// image, base is nil for base BTF or the raw BTF or ELF image of the base.
// name labels the input in errors and reports.
func FromBytes(name string, data, base []byte) (*Set, error) {
	btf, distilled, err := extractBTF(name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var bt *table
	switch {
	case base != nil:
		raw, _, err := extractBTF(name+" base", bytes.NewReader(base))
		if err != nil {
			return nil, err
		}
		if bt, err = decode(name+" base", raw, nil); err != nil {
			return nil, err
		}
	case distilled != nil:
		if bt, err = decode(name+"(.BTF.base)", distilled, nil); err != nil {
			return nil, err
		}
	}
	baseName := ""
	if bt != nil {
		baseName = bt.name
	}
	return newSetFromRaw(name, baseName, btf, bt)
}

func newSetFromRaw(name, baseName string, raw []byte, base *table) (*Set, error) {
	t, err := decode(name, raw, base)
	if err != nil {
		return nil, err
	}
	s, err := newSet(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.name, s.base = name, baseName
	return s, nil
}

// readBTF returns the BTF blob in path, and the .BTF.base section when
// path is an ELF file that has one.
func readBTF(path string) (btf, distilled []byte, err error) {
	f, err := inputs.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return extractBTF(path, f)
}

// extractBTF returns r's contents if it is raw BTF, or its .BTF (and
// .BTF.base) sections if it is an ELF file.
func extractBTF(name string, r io.ReaderAt) (btf, distilled []byte, err error) {
	var magic [4]byte
	if _, err := r.ReadAt(magic[:], 0); err != nil && err != io.EOF {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	if string(magic[:]) != elfMagic {
		sr := io.NewSectionReader(r, 0, 1<<62)
		data, err := io.ReadAll(sr)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
		return data, nil, nil
	}
	return elfBTF(name, r)
}

// elfBTF reads the .BTF and .BTF.base sections of an ELF file. debug/elf
// is not hardened against every malformed file, so a panic inside it is
// turned into an error.
func elfBTF(name string, r io.ReaderAt) (btf, distilled []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			btf, distilled = nil, nil
			err = fmt.Errorf("%s: malformed ELF file: %v", name, p)
		}
	}()
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	sec := f.Section(".BTF")
	if sec == nil {
		return nil, nil, fmt.Errorf("%s: ELF file has no .BTF section", name)
	}
	if btf, err = sectionData(sec); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if sec := f.Section(".BTF.base"); sec != nil {
		if distilled, err = sectionData(sec); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return btf, distilled, nil
}

func sectionData(sec *elf.Section) ([]byte, error) {
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("section %s has no data (SHT_NOBITS)", sec.Name)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("read section %s: %w", sec.Name, err)
	}
	if len(data) == 0 {
		return nil, errors.New("section " + sec.Name + " is empty")
	}
	return data, nil
}
