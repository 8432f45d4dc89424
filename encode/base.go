package encode

import (
	"fmt"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/loader"
)

// loadedBase is a base BTF and how it was loaded.
type loadedBase struct {
	types *btf.Types
	how   baseLoaded
}

// loadBaseBeside starts loading opts.BasePath unless opts.Base is given:
// reading, parsing and indexing the kernel's strings then overlap
// with the mapping and relocating of a module.
func loadBaseBeside(opts Options) *future[loadedBase] {
	if opts.Base != nil || opts.BasePath == "" {
		return resolved(loadedBase{types: opts.Base}, nil)
	}
	return goFuture(func() (loadedBase, error) {
		if opts.BaseCache != nil {
			t, how, err := opts.BaseCache.load(opts.BasePath)
			return loadedBase{t, how}, err
		}
		t, err := LoadBase(opts.BasePath)
		if err == nil {
			t.Strings.BuildIndex() // the splicer's first lookup would
		}
		return loadedBase{types: t}, err
	})
}

// LoadBase reads base BTF for split encoding from path (raw BTF, or an ELF
// file with .BTF such as vmlinux).
func LoadBase(path string) (*btf.Types, error) {
	raw, err := readBase(path)
	if err != nil {
		return nil, err
	}
	return parseBase(path, raw, parseAlone)
}

// parseAlone parses raw BTF that has no base.
func parseAlone(raw []byte) (*btf.Types, error) { return btf.Parse(raw, nil) }

// readBase reads the base BTF at path, its errors named as a base's.
func readBase(path string) ([]byte, error) {
	raw, err := loader.ReadBTF(path)
	if err != nil {
		return nil, fmt.Errorf("base BTF: %w", err)
	}
	return raw, nil
}

// parseBase parses raw, read from path, with parse, its errors named as a
// base's (ReadBTF's name path first).
func parseBase(path string, raw []byte, parse func([]byte) (*btf.Types, error)) (*btf.Types, error) {
	t, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base BTF: %s: %w", path, err)
	}
	return t, nil
}
