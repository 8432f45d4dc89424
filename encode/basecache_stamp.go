package encode

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/btfgate/btfgate/internal/atomicfile"
	"github.com/btfgate/btfgate/internal/inputs"
)

// The stamp file of a BaseCache directory lets a load trust a base by its
// file's identity, as git trusts a work tree file whose stat data its
// index holds ("racy git"): once a prepared base has been checked whole
// against a base file (btf.LoadPreparedFrom), the identities of both
// files are recorded, and a later load whose base and prepared file still
// have them does not read the base: the stored BTF is not compared with it,
// and the prepared file, checked whole then, is loaded trusted
// (btf.LoadPreparedTrusted): its header and type offsets are checked, its
// sum, dedup tables and string index are not (their reads are bounded).
//
// A file's identity (fileID) is its device, inode, size, and modification
// and change times in nanoseconds. A write, a truncation, a rename over
// it or a chmod sets the change time to the clock, which no process can
// set back; a file changed after its identity was taken therefore has
// another unless the change fell in the same tick of the file system's
// clock as the change before it. So an entry is trusted only if both
// files' times are older than the entry's recording time, taken before
// either file was examined, by more than stampMargin: a change after the
// recording then has a later time than the one recorded. A change within
// the margin leaves the entry untrusted (racy), and such entries are not
// written at all; the load compares the base whole, as without a stamp.
//
// The file, stampName in the cache directory, holds at most
// maxStampEntries entries, the newest first, one per base file (device
// and inode): a full check that passes puts its entry first and drops the
// base file's older one and the oldest beyond the limit. It is written to
// a temporary file renamed into place (internal/atomicfile), so
// concurrent encodes read whole stamps; two that write at once keep one of
// their entries, and the other base is checked whole once more. A stamp
// that cannot be written costs the next load a full check, nothing else.
// A stamp that is not whole (its CRC-32C), names a file that is not a
// prepared base of the directory, or that another user could have
// written (owned by another user, or writable by group or others) is
// ignored.
//
// Layout (little endian): the magic "BTFGSTP\x01", the number of entries
// (uint32), 4 zero bytes, the entries (stampEntrySize bytes each), then
// the CRC-32C of all before it. An entry: the recording time (int64 ns),
// the base's fileID (dev, ino, size, mtime, ctime: 5 × 8 bytes), the
// length of its BTF (uint64), the prepared file's fileID, and the
// prepared file's name (a length byte, then the name, zero-padded).
const (
	stampName       = "bases.stamp"
	stampMagic      = "BTFGSTP\x01"
	stampHeader     = 16
	stampNameField  = 48
	stampEntrySize  = 8 + 40 + 8 + 40 + stampNameField
	maxStampEntries = 16
	stampMaxSize    = stampHeader + maxStampEntries*stampEntrySize + 4
)

// stampMargin is how much older than an entry's recording time both
// files' modification and change times must be for the entry to be
// trusted: more than any file system's timestamp granularity.
const stampMargin = 2 * time.Second

// fileID is what a stamp records of a file (see the stamp file's comment).
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
}

// settledBy reports whether the file's times are older than t (ns since
// the epoch) by more than stampMargin.
func (id fileID) settledBy(t int64) bool {
	limit := t - int64(stampMargin)
	return id.mtime < limit && id.ctime < limit
}

// stampEntry records that the prepared base name was checked whole
// against the base file base, whose BTF is btfLen bytes, when the files
// had the identities base and cache; recorded is the time taken before
// either was examined.
type stampEntry struct {
	recorded int64
	base     fileID
	btfLen   int64
	cache    fileID
	name     string
}

// trusted reports whether e lets a load skip comparing its base: both
// files' times settled before the recording.
func (e *stampEntry) trusted() bool {
	return e.base.settledBy(e.recorded) && e.cache.settledBy(e.recorded)
}

// stamp is the entries of a stamp file, the newest first.
type stamp []stampEntry

// find returns the trusted entry for a base file whose identity is base.
func (s stamp) find(base fileID) (stampEntry, bool) {
	for _, e := range s {
		if e.base == base && e.trusted() {
			return e, true
		}
	}
	return stampEntry{}, false
}

// with returns the stamp with e first, without other entries of e's base
// file, and at most maxStampEntries long.
func (s stamp) with(e stampEntry) stamp {
	out := stamp{e}
	for _, old := range s {
		if len(out) == maxStampEntries {
			break
		}
		if old.base.dev != e.base.dev || old.base.ino != e.base.ino {
			out = append(out, old)
		}
	}
	return out
}

// validStampName reports whether name can be a prepared base of the
// cache directory, as fileName names them: a stamp naming anything else
// (another directory above all) is not used.
func validStampName(name string) bool {
	return len(name) < stampNameField && strings.HasSuffix(name, ".btfbase") && !strings.HasPrefix(name, ".") &&
		!strings.ContainsAny(name, "/\x00") && filepath.Base(name) == name
}

// marshal returns the stamp file's bytes.
func (s stamp) marshal() []byte {
	le := binary.LittleEndian
	out := make([]byte, stampHeader, stampHeader+len(s)*stampEntrySize+4)
	copy(out, stampMagic)
	le.PutUint32(out[8:], uint32(len(s)))
	for _, e := range s {
		var b [stampEntrySize]byte
		w := b[:0]
		w = le.AppendUint64(w, uint64(e.recorded))
		w = appendFileID(w, e.base)
		w = le.AppendUint64(w, uint64(e.btfLen))
		w = appendFileID(w, e.cache)
		w = append(w, byte(len(e.name)))
		copy(b[len(w):], e.name)
		out = append(out, b[:]...)
	}
	return le.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

func appendFileID(b []byte, id fileID) []byte {
	le := binary.LittleEndian
	for _, v := range []uint64{id.dev, id.ino, uint64(id.size), uint64(id.mtime), uint64(id.ctime)} {
		b = le.AppendUint64(b, v)
	}
	return b
}

var errBadStamp = errors.New("base cache stamp: damaged")

// parseStamp reads a stamp file's bytes; anything but a whole stamp of
// valid names is errBadStamp.
func parseStamp(b []byte) (stamp, error) {
	le := binary.LittleEndian
	if len(b) < stampHeader+4 || string(b[:8]) != stampMagic || le.Uint32(b[12:]) != 0 {
		return nil, errBadStamp
	}
	n := int(le.Uint32(b[8:]))
	if n > maxStampEntries || len(b) != stampHeader+n*stampEntrySize+4 {
		return nil, errBadStamp
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != le.Uint32(b[len(body):]) {
		return nil, errBadStamp
	}
	s := make(stamp, 0, n)
	for i := range n {
		r := body[stampHeader+i*stampEntrySize:][:stampEntrySize]
		u := func() uint64 { v := le.Uint64(r); r = r[8:]; return v }
		id := func() fileID {
			return fileID{dev: u(), ino: u(), size: int64(u()), mtime: int64(u()), ctime: int64(u())}
		}
		e := stampEntry{recorded: int64(u()), base: id(), btfLen: int64(u()), cache: id()}
		if k := int(r[0]); k < stampNameField {
			e.name = string(r[1 : 1+k])
		}
		if !validStampName(e.name) || e.btfLen <= 0 {
			return nil, errBadStamp
		}
		s = append(s, e)
	}
	return s, nil
}

// readStamp returns the stamp of the cache directory, or nil if there is
// none this user alone could have written whole.
func (c *BaseCache) readStamp() stamp {
	fh, err := inputs.Open(filepath.Join(c.dir, stampName))
	if err != nil {
		return nil
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || !ownedPrivately(st) || st.Size() > stampMaxSize {
		return nil
	}
	b := make([]byte, stampMaxSize+1)
	n, err := io.ReadFull(fh, b)
	if err != io.ErrUnexpectedEOF {
		return nil // larger than a stamp, or unreadable
	}
	s, err := parseStamp(b[:n])
	if err != nil {
		return nil
	}
	return s
}

// record adds e to the cache directory's stamp, unless it could never be
// trusted. Errors are returned for tests; a load ignores them.
func (c *BaseCache) record(e stampEntry) error {
	if !e.trusted() {
		return nil
	}
	return atomicfile.WriteFile(filepath.Join(c.dir, stampName), c.readStamp().with(e).marshal(), 0o644)
}
