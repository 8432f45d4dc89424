package encode

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/internal/atomicfile"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/elffile"
)

// BaseCache keeps prepared bases (btf.MarshalPrepared) in a directory, so
// that module encodes on the same base BTF map its type offsets, string
// index and dedup tables instead of computing them again: a kernel build encodes
// thousands of modules on one vmlinux. A file is named by the CRC-32C and
// length of the base's BTF and checked against that BTF whole when it is
// loaded; one that does not load is written again. Writes go to a
// temporary file renamed into place, so that concurrent encodes (make -j)
// read whole files; the newest KeepFiles files are kept.
//
// The types loaded alias the mapped files: a BaseCache maps each file once
// and keeps it mapped until Close.
type BaseCache struct {
	dir string

	mu   sync.Mutex
	maps map[string][]byte // by file name
}

// KeepFiles is how many prepared bases a BaseCache directory keeps.
const KeepFiles = 8

// NewBaseCache returns a cache in dir, which is created when first written.
func NewBaseCache(dir string) *BaseCache {
	return &BaseCache{dir: dir, maps: map[string][]byte{}}
}

// Dir is the cache's directory.
func (c *BaseCache) Dir() string { return c.dir }

// Close unmaps the files; types loaded from them must not be used after.
func (c *BaseCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for name, m := range c.maps {
		if err := elffile.Unmap(m); err != nil && first == nil {
			first = err
		}
		delete(c.maps, name)
	}
	return first
}

// baseLoaded is how a base was loaded through a cache.
type baseLoaded struct {
	hit      bool  // mapped from the cache
	writeErr error // the cache could not be written (the encode goes on)
}

// load returns the base BTF at path with its strings indexed: from the
// cache when it holds it, else parsed and then stored.
func (c *BaseCache) load(path string) (t *btf.Types, how baseLoaded, err error) {
	// The base is mapped, not read: on a hit it is only hashed and
	// compared with the stored copy, which the types then alias, so a
	// copy in the heap would be garbage as large as the kernel's BTF.
	raw, done, err := loader.MapBTF(path)
	if err != nil {
		return nil, how, fmt.Errorf("base BTF: %w", err)
	}
	defer done()
	defer elffile.GuardFaults(path, &err)()
	if !btf.CanPrepare(raw) {
		t, err := parseBase(path, bytes.Clone(raw), parseAlone)
		if err == nil {
			t.Strings.BuildIndex()
		}
		return t, how, err
	}
	name := fmt.Sprintf("%08x-%d.btfbase", crc32.Checksum(raw, crc32.MakeTable(crc32.Castagnoli)), len(raw))
	if t := c.mapped(name, raw); t != nil {
		how.hit = true
		return t, how, nil
	}
	raw = bytes.Clone(raw) // the parsed types alias it
	t, err = parseBase(path, raw, btf.ParseBase)
	if err != nil {
		return nil, how, err
	}
	data, err := btf.MarshalPrepared(t, raw)
	if err == nil {
		err = c.store(name, data)
		// The encode's dedup then decodes the tables just prepared
		// instead of preparing the base a second time.
		if prepared, lerr := btf.LoadPrepared(data, raw, nil); lerr == nil {
			t = prepared
		}
	}
	how.writeErr = err
	return t, how, nil
}

// mapped returns the base prepared in file name if it loads for raw.
func (c *BaseCache) mapped(name string, raw []byte) *btf.Types {
	c.mu.Lock()
	defer c.mu.Unlock()
	if data, ok := c.maps[name]; ok {
		// Loaded before: types from it may be in use, so it stays mapped
		// even when it is not raw's (another base with the same sum).
		t, _ := btf.LoadPrepared(data, raw, elffile.DropPages)
		return t
	}
	data, err := elffile.MapFile(filepath.Join(c.dir, name))
	if err != nil || data == nil {
		return nil
	}
	t, err := btf.LoadPrepared(data, raw, elffile.DropPages)
	if err != nil { // another base with the same sum, or a damaged file
		elffile.Unmap(data)
		return nil
	}
	c.maps[name] = data
	return t
}

// store writes data, a prepared base, as file name, then removes all but
// the newest KeepFiles prepared bases.
func (c *BaseCache) store(name string, data []byte) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(c.dir, name), data, 0o644); err != nil {
		return err
	}
	c.evict()
	return nil
}

// evict removes all but the newest KeepFiles prepared bases.
func (c *BaseCache) evict() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  int64
	}
	var files []file
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".btfbase") {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(b.mod, a.mod) })
	for _, f := range files[min(KeepFiles, len(files)):] {
		os.Remove(filepath.Join(c.dir, f.name))
	}
}
