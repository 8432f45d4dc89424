package encode

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/internal/atomicfile"
	"github.com/btfgate/btfgate/internal/inputs"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/elffile"
)

// BaseCache keeps prepared bases (btf.Prepare) in a directory, so
// that module encodes on the same base BTF map its type offsets, string
// index and dedup tables instead of computing them again: a kernel build encodes
// thousands of modules on one vmlinux. A file is named by the length of the
// base's BTF and the CRC-32C of its ends (fileName), and checked against
// that BTF whole when it is loaded, by reading it rather than its mapping
// (btf.LoadPreparedFrom); one that does not load is written again. Writes go to a
// temporary file renamed into place, so that concurrent encodes (make -j)
// read whole files; the newest KeepFiles files are kept.
//
// A base file and a prepared base checked whole together are recorded by
// their identities in the directory's stamp (see stampName), and a later
// load that finds both unchanged neither reads nor compares the base, nor
// sums the prepared base or reads its dedup tables and string index
// (btf.LoadPreparedTrusted): only its header and type offsets are checked.
//
// The types loaded alias the mapped files: a BaseCache maps each file once
// and keeps it mapped until Close.
type BaseCache struct {
	dir string
	// now is the clock of the stamp's entries; baseRead, if not nil, is
	// told each time a load is about to read the base file, and fileRead
	// each read of a prepared base's file through its descriptor, by
	// offset and length (tests).
	now      func() time.Time
	baseRead func(path string)
	fileRead func(name string, off int64, n int)

	mu   sync.Mutex
	maps map[string]mappedFile // by file name
}

// mappedFile is a prepared base a BaseCache mapped.
type mappedFile struct {
	data []byte
	id   fileID // when it was opened; zero if not known
}

// KeepFiles is how many prepared bases a BaseCache directory keeps.
const KeepFiles = 8

// NewBaseCache returns a cache in dir, which is created when first written.
func NewBaseCache(dir string) *BaseCache {
	return &BaseCache{dir: dir, now: time.Now, maps: map[string]mappedFile{}}
}

// Dir is the cache's directory.
func (c *BaseCache) Dir() string { return c.dir }

// Close unmaps the files; types loaded from them must not be used after.
func (c *BaseCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for name, m := range c.maps {
		if err := elffile.Unmap(m.data); err != nil && first == nil {
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
	// Encodes started together on a new base prepare it one at a time:
	// one stores it, the others then find it.
	release, waited := c.lockPreparing()
	defer release()
	if waited || !looked {
		var t *btf.Types
		if looked {
			t, _ = c.loadFile(path)
		} else { // a compressed section: the copy MapBTF made
			t, _ = c.mapped(name, bytes.NewReader(raw), int64(len(raw)))
		}
		if t != nil {
			how.hit = true
			return t, how, nil
		}
	}
	// The base is parsed where it is mapped and its prepared form written
	// in pieces, then mapped as a later encode maps it: the process never
	// holds the whole file (10 MB for a kernel's). What the preparing held
	// (the dedup's tables, the string index: 6 MB for a kernel's) is then
	// given back to the system: the encode's heap grows again from less,
	// instead of keeping those pages on top of what it maps.
	parsed, err := parseBase(path, raw, btf.ParseBase)
	if err != nil {
		return nil, how, err
	}
	prepared, err := btf.Prepare(parsed, raw)
	if err == nil {
		err = c.store(name, func(w io.Writer) error {
			_, err := prepared.WriteTo(w)
			return err
		})
		prepared = nil
		debug.FreeOSMemory()
	}
	if err == nil {
		if t, _ := c.mapped(name, bytes.NewReader(raw), int64(len(raw))); t != nil {
			return t, how, nil
		}
		err = errors.New("the prepared base stored does not load")
	}
	// The base is then parsed on a copy of its own, and the encode's
	// dedup prepares it.
	how.writeErr = err
	t, err = parseBase(path, bytes.Clone(raw), btf.ParseBase)
	return t, how, err
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
// from the file, or not read at all if the stamp holds a trusted entry
// for the file as it is. looked is false if the BTF could not be read so
// (a compressed section, or not a regular file): the caller then hashes
// what loader.MapBTF gives.
func (c *BaseCache) loadFile(path string) (t *btf.Types, looked bool) {
	// The entry's recording time is taken before either file is examined:
	// a change after it gives them later times than those recorded.
	start := c.now().UnixNano()
	fh, err := inputs.Open(path) // a regular file (a FIFO would block)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	baseID, identified := fileIDOf(st)
	if identified {
		if e, ok := c.readStamp().find(baseID); ok {
			if t := c.mappedKnown(e); t != nil {
				return t, true
			}
		}
	}
	if c.baseRead != nil {
		c.baseRead(path)
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
	t, cacheID := c.mapped(name, r, n)
	if t != nil && identified && cacheID != (fileID{}) {
		c.record(stampEntry{recorded: start, base: baseID, btfLen: n, cache: cacheID, name: name})
	}
	return t, true
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
// n bytes of the base BTF, with the file's identity when it was opened
// (zero if not known). The file is checked by reading it, not its
// mapping, which then holds resident only what the encode reads.
func (c *BaseCache) mapped(name string, raw io.ReaderAt, n int64) (*btf.Types, fileID) {
	return c.mapWith(name, func(data []byte, file io.ReaderAt, _ fileID) (*btf.Types, error) {
		return btf.LoadPreparedFrom(data, file, raw, n)
	})
}

// mappedKnown returns the base prepared in the file of stamp entry e if
// the file still has the identity e records, loaded trusted: e says it
// was checked whole against the base (its sum, tables, type offsets and
// stored BTF), and the caller found the base unchanged since, so neither
// the compare nor the checks of what the dedup and the string lookups
// read bounded are made again (btf.LoadPreparedTrusted). A forged stamp
// or a file changed within its identity can so give wrong output or an
// error, not a panic or a hang (TestBaseCacheTrustedDamaged).
func (c *BaseCache) mappedKnown(e stampEntry) *btf.Types {
	t, _ := c.mapWith(e.name, func(data []byte, file io.ReaderAt, id fileID) (*btf.Types, error) {
		if id == (fileID{}) || id != e.cache {
			return nil, errBadStamp
		}
		return btf.LoadPreparedTrusted(data, file, e.btfLen)
	})
	return t
}

// mapWith returns what load gives for the prepared base in file name,
// mapped (data), read by pieces through file, with identity id (zero if
// not known); the file stays mapped if load succeeds, or if it was mapped
// before: types from it may be in use even when it is not this base's
// (another base with the same sum).
func (c *BaseCache) mapWith(name string, load func(data []byte, file io.ReaderAt, id fileID) (*btf.Types, error)) (*btf.Types, fileID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.maps[name]; ok {
		// The mapping's identity holds while the file still has it.
		id := fileID{}
		if st, err := os.Stat(filepath.Join(c.dir, name)); err == nil {
			if now, ok := fileIDOf(st); ok && now == m.id {
				id = m.id
			}
		}
		t, err := load(m.data, c.watched(name, bytes.NewReader(m.data)), id)
		if err != nil {
			return nil, fileID{}
		}
		return t, id
	}
	fh, err := inputs.Open(filepath.Join(c.dir, name))
	if err != nil {
		return nil, fileID{}
	}
	defer fh.Close()
	var id fileID
	if st, err := fh.Stat(); err == nil {
		id, _ = fileIDOf(st)
	}
	// If the file is not in the page cache, the checks' reads put it
	// there in small folios, so that the encode maps what it reads.
	elffile.ReadRandomly(fh)
	data, err := elffile.MapOpen(fh)
	if err != nil || data == nil {
		return nil, fileID{}
	}
	t, err := load(data, c.watched(name, fh), id)
	if err != nil { // another base with the same sum, or a damaged file
		elffile.Unmap(data)
		return nil, fileID{}
	}
	c.maps[name] = mappedFile{data: data, id: id}
	return t, id
}

// watched returns r, whose reads are told to c.fileRead if set.
func (c *BaseCache) watched(name string, r io.ReaderAt) io.ReaderAt {
	if c.fileRead == nil {
		return r
	}
	return readWatcher{r: r, seen: func(off int64, n int) { c.fileRead(name, off, n) }}
}

// readWatcher is an io.ReaderAt that tells seen of each read.
type readWatcher struct {
	r    io.ReaderAt
	seen func(off int64, n int)
}

func (w readWatcher) ReadAt(p []byte, off int64) (int, error) {
	w.seen(off, len(p))
	return w.r.ReadAt(p, off)
}

// store writes what write writes, a prepared base, as file name, then
// removes all but the newest KeepFiles prepared bases.
func (c *BaseCache) store(name string, write func(io.Writer) error) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(c.dir, name), 0o644, write); err != nil {
		return err
	}
	atomicfile.KeepNewest(c.dir, ".btfbase", KeepFiles)
	return nil
}
