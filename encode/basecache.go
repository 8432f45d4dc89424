package encode

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/internal/atomicfile"
	"github.com/btfgate/btfgate/internal/inputs"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/elffile"
)

// BaseCache keeps prepared bases (btf.MarshalPrepared) in a directory, so
// that module encodes on the same base BTF map its type offsets, string
// index and dedup tables instead of computing them again: a kernel build encodes
// thousands of modules on one vmlinux. A file is named by the length of the
// base's BTF and the CRC-32C of its ends (fileName), and checked against
// that BTF whole when it is loaded, by reading it rather than its mapping
// (btf.LoadPreparedFrom); one that does not load is written again. Writes go to a
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
	// A raw BTF file, or an ELF file's .BTF section, is read by pieces to
	// find its prepared base: on a hit it is only hashed and compared with
	// the stored copy, which the types then alias, and the process need
	// not hold its pages.
	t, looked := c.loadFile(path)
	if t != nil {
		how.hit = true
		return t, how, nil
	}
	// Else the base is mapped, not read: a copy in the heap would be
	// garbage as large as the kernel's BTF.
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
	name, err := fileName(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, how, err
	}
	if !looked { // a compressed section: the copy MapBTF made
		if t := c.mapped(name, bytes.NewReader(raw), int64(len(raw))); t != nil {
			how.hit = true
			return t, how, nil
		}
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

// fileName returns the name of the prepared base of the n bytes of BTF
// r reads: their length and the CRC-32C of their first and last keyBytes.
// Two bases may share a name (they then take turns in the file); loading
// compares the base with the stored copy whole, so the name need not
// cover every byte, and a hit reads the base once.
func fileName(r io.ReaderAt, n int64) (string, error) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	var buf [8 << 10]byte // small: a fresh heap page costs a fault
	sum := uint32(0)
	add := func(from, to int64) error {
		for off := from; off < to; {
			b := buf[:min(int64(len(buf)), to-off)]
			if _, err := r.ReadAt(b, off); err != nil {
				return fmt.Errorf("base BTF: %w", err)
			}
			sum = crc32.Update(sum, tab, b)
			off += int64(len(b))
		}
		return nil
	}
	err := add(0, min(n, keyBytes))
	if err == nil && n > keyBytes {
		err = add(max(keyBytes, n-keyBytes), n) // all of a small base
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%08x-%d.btfbase", sum, n), nil
}

// keyBytes is how many bytes at each end of a base fileName sums.
const keyBytes = 64 << 10

// loadFile returns the prepared base of the BTF in the file at path if
// the cache holds it: the whole file if it is raw BTF, else the .BTF
// section of an ELF file (vmlinux, as Kbuild passes it), read by pieces
// from the file. looked is false if the BTF could not be read so (a
// compressed section, or not a regular file): the caller then hashes what
// loader.MapBTF gives.
func (c *BaseCache) loadFile(path string) (t *btf.Types, looked bool) {
	fh, err := inputs.Open(path) // a regular file (a FIFO would block)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	var magic [2]byte
	if _, err := fh.ReadAt(magic[:], 0); err != nil {
		return nil, false
	}
	var r io.ReaderAt = fh
	n := st.Size()
	if !btf.CanPrepare(magic[:]) {
		off, size, ok := btfSection(path, n)
		if !ok {
			return nil, false
		}
		r, n = io.NewSectionReader(fh, off, size), size
		if _, err := r.ReadAt(magic[:], 0); err != nil || !btf.CanPrepare(magic[:]) {
			return nil, true // not BTF this host can map: MapBTF's caller parses it
		}
	}
	name, err := fileName(r, n)
	if err != nil {
		return nil, false
	}
	return c.mapped(name, r, n), true
}

// btfSection returns where the .BTF section of the ELF file at path, of
// size bytes, lies in it; false if there is none stored as is (compressed
// sections are not).
func btfSection(path string, size int64) (off, n int64, ok bool) {
	f, err := elffile.Open(path) // maps the file, reads its headers only
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sec := f.Section(".BTF")
	if sec == nil || sec.Type == elffile.SHT_NOBITS || sec.Flags&elffile.SHF_COMPRESSED != 0 ||
		sec.Offset > uint64(size) || sec.Size > uint64(size)-sec.Offset {
		return 0, 0, false
	}
	return int64(sec.Offset), int64(sec.Size), true
}

// mapped returns the base prepared in file name if it loads for raw, the
// n bytes of the base BTF. The file is checked by reading it, not its
// mapping, which then holds resident only what the encode reads.
func (c *BaseCache) mapped(name string, raw io.ReaderAt, n int64) *btf.Types {
	c.mu.Lock()
	defer c.mu.Unlock()
	if data, ok := c.maps[name]; ok {
		// Loaded before: types from it may be in use, so it stays mapped
		// even when it is not raw's (another base with the same sum).
		t, _ := btf.LoadPreparedFrom(data, bytes.NewReader(data), raw, n)
		return t
	}
	fh, err := inputs.Open(filepath.Join(c.dir, name))
	if err != nil {
		return nil
	}
	defer fh.Close()
	// If the file is not in the page cache, the checks' reads put it
	// there in small folios, so that the encode maps what it reads.
	elffile.ReadRandomly(fh)
	data, err := elffile.MapOpen(fh)
	if err != nil || data == nil {
		return nil
	}
	t, err := btf.LoadPreparedFrom(data, fh, raw, n)
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
	atomicfile.KeepNewest(c.dir, ".btfbase", KeepFiles)
	return nil
}
