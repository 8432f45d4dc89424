package btfdiff

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/btfgate/btfgate/internal/inputs"
	"github.com/btfgate/btfgate/loader/elffile"
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
	btf, distilled, err := extractBTF(name, data)
	if err != nil {
		return nil, err
	}
	var bt *table
	switch {
	case base != nil:
		raw, _, err := extractBTF(name+" base", base)
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
// path is an ELF file that has one. An ELF file is mapped, not read whole.
func readBTF(path string) (btf, distilled []byte, err error) {
	f, err := inputs.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil && err != io.EOF {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if string(magic[:]) != elfMagic {
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
		return data, nil, nil
	}
	ef, err := elffile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer ef.Close()
	return elfBTF(ef)
}

// extractBTF returns data if it is raw BTF, or its .BTF (and .BTF.base)
// sections if it is an ELF image.
func extractBTF(name string, data []byte) (btf, distilled []byte, err error) {
	if !bytes.HasPrefix(data, []byte(elfMagic)) {
		return data, nil, nil
	}
	ef, err := elffile.NewFile(name, data)
	if err != nil {
		return nil, nil, err
	}
	return elfBTF(ef)
}

// elfBTF returns copies of the .BTF and .BTF.base sections of f.
func elfBTF(f *elffile.File) (btf, distilled []byte, err error) {
	sec := f.Section(".BTF")
	if sec == nil {
		return nil, nil, fmt.Errorf("%s: ELF file has no .BTF section", f.Path)
	}
	if btf, err = sectionData(f, sec); err != nil {
		return nil, nil, err
	}
	if sec := f.Section(".BTF.base"); sec != nil {
		if distilled, err = sectionData(f, sec); err != nil {
			return nil, nil, err
		}
	}
	return btf, distilled, nil
}

func sectionData(f *elffile.File, sec *elffile.Section) ([]byte, error) {
	if sec.Type == elffile.SHT_NOBITS {
		return nil, fmt.Errorf("%s: section %s has no data (SHT_NOBITS)", f.Path, sec.Name)
	}
	data, err := f.SectionData(sec)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New(f.Path + ": section " + sec.Name + " is empty")
	}
	return bytes.Clone(data), nil
}
