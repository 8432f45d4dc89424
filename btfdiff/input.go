package btfdiff

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/btfgate/btfgate/btf"
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
	var b *blob
	err := withBTF(path, func(raw, distilled []byte) error {
		var base *blob
		switch {
		case basePath != "":
			err := withBTF(basePath, func(raw, _ []byte) (err error) {
				base, err = parseBlob(basePath, raw, nil)
				return err
			})
			if err != nil {
				return fmt.Errorf("base of %s: %w", path, err)
			}
		case distilled != nil:
			var err error
			if base, err = parseBlob(path+"(.BTF.base)", distilled, nil); err != nil {
				return err
			}
		}
		var err error
		b, err = parseBlob(path, raw, base)
		return err
	})
	if err != nil {
		return nil, err
	}
	return newSetOf(path, basePath, b)
}

// FromBytes is Load for data held in memory: data is raw BTF or an ELF
// image, base is nil for base BTF or the raw BTF or ELF image of the base.
// name labels the input in errors and reports.
func FromBytes(name string, data, base []byte) (*Set, error) {
	raw, distilled, err := extractBTF(name, data)
	if err != nil {
		return nil, err
	}
	var bb *blob
	baseName := ""
	switch {
	case base != nil:
		baseName = name + " base"
		braw, _, err := extractBTF(baseName, base)
		if err != nil {
			return nil, err
		}
		if bb, err = parseBlob(baseName, braw, nil); err != nil {
			return nil, err
		}
	case distilled != nil:
		baseName = name + "(.BTF.base)"
		if bb, err = parseBlob(baseName, distilled, nil); err != nil {
			return nil, err
		}
	}
	b, err := parseBlob(name, raw, bb)
	if err != nil {
		return nil, err
	}
	return newSetOf(name, baseName, b)
}

// blob is the BTF of one input as btf.ParseLenient reads it: everything
// reading it depends on is checked, and what the kernel refuses only on
// meaning (reserved info bits, a FUNC not on a FUNC_PROTO, a FWD with a
// type) passes, so that a diff describes such BTF too.
type blob struct {
	types *btf.Types
	size  int64 // bytes of raw BTF read, the base's included
}

// parseBlob reads the raw BTF data of the input name; base is nil for base
// BTF. Errors are *DecodeError.
func parseBlob(name string, data []byte, base *blob) (*blob, error) {
	var bt *btf.Types
	size := int64(len(data))
	if base != nil {
		bt, size = base.types, size+base.size
	}
	t, err := btf.ParseLenient(data, bt)
	if err != nil {
		de := &DecodeError{Name: name, Err: err}
		if pe := (*btf.ParseError)(nil); errors.As(err, &pe) {
			de.Offset = int64(pe.Offset)
		}
		return nil, de
	}
	return &blob{types: t, size: size}, nil
}

func newSetOf(name, baseName string, b *blob) (*Set, error) {
	s, err := newSet(b.types, b.size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.name, s.base = name, baseName
	return s, nil
}

// withBTF calls fn with the BTF blob in path, and the .BTF.base section when
// path is an ELF file that has one. An ELF file is mapped, not read whole;
// fn must not keep the slices (btf.ParseLenient copies what it keeps).
func withBTF(path string, fn func(raw, distilled []byte) error) error {
	f, err := inputs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil && err != io.EOF {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if string(magic[:]) != elfMagic {
		data, err := io.ReadAll(f)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		return fn(data, nil)
	}
	ef, err := elffile.Open(path)
	if err != nil {
		return err
	}
	defer ef.Close()
	raw, distilled, err := elfBTF(ef)
	if err != nil {
		return err
	}
	return fn(raw, distilled)
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

// elfBTF returns the .BTF and .BTF.base sections of f, valid until f is
// closed.
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
	return data, nil
}
