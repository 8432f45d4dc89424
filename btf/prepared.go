package btf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unsafe"
)

// A prepared base is what Parse and BuildIndex compute for a base BTF (the
// kernel's, for module encodes): where each type starts and the index of
// the strings, stored beside a copy of the raw bytes so that the next
// encode on the same base maps them instead of computing them. The words and strings of the loaded types alias
// the stored copy; the index is hashed with stableHash. The dedup's prep
// of the base (dedupSnapshot) is stored too.
//
// Layout (little endian; only little-endian hosts and BTF use it): a
// 112-byte header, the dedup snapshot (writeSnapshot), then from rawAt
// the raw BTF and, 8-byte aligned, the type offsets (uint32 each) and the
// index slots (uint64 each) to the end.
//
//	 0 magic "BTFGPRE\x01"   56 string section length
//	 8 format version       64 number of types
//	16 flags (1: deduped)    72 index slots (a power of two, at most 4/5 used)
//	24 raw length           80 strings in the index
//	32 type section start   88 rawAt
//	40 type words           96 snapshot length
//	48 string section start 104 CRC-32C of bytes 0-103, the snapshot,
//	                            the offsets and the slots
//
// The snapshot comes first, and a large base's raw BTF starts on a 2 MiB
// boundary (rawAlign), because a mapped file may be paged in by whole page
// cache folios (up to 2 MiB) if the page cache holds it in large ones
// (LoadPreparedFrom's callers see that it does not): what an encode reads
// all along (the types, strings, offsets and index) then shares no folio
// with the snapshot, which LoadPrepared's release can drop, and ends with
// the file, so no folio maps bytes past it.
const (
	preparedMagic   = "BTFGPRE\x01"
	preparedVersion = 6
	preparedHeader  = 112
	preparedSumAt   = 104
)

// rawAlign is the alignment of the raw BTF in a prepared base of n raw
// bytes: 2 MiB, the largest page cache folio, for a kernel's; 8 for a
// small one, which a folio holds whole anyway.
func rawAlign(n int) int {
	if n >= 1<<20 {
		return 2 << 20
	}
	return 8
}

// ParseBase parses raw BTF without a base, as Parse does, and indexes its
// strings with a hash stable across processes, so that the result can be
// prepared (Prepare). Where the host can read raw as the types' words and
// strings (CanPrepare), the types alias it instead of a copy: raw must then
// stay unmodified while they are in use.
func ParseBase(raw []byte) (*Types, error) {
	t, err := parse(raw, nil, false, true)
	if err != nil {
		return nil, err
	}
	t.Strings.buildIndex(true)
	return t, nil
}

// CanPrepare reports whether raw BTF can be stored prepared on this host:
// both must be little endian, as the loaded types alias the bytes.
func CanPrepare(raw []byte) bool {
	return hostLittleEndian() && len(raw) >= 2 && binary.LittleEndian.Uint16(raw) == magic
}

func hostLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// Prepared is the prepared form of a base, laid out and ready to be
// written in pieces (WriteTo): the caller holds the parsed base and the
// dedup's tables, never the whole file (a kernel's is 10 MB).
type Prepared struct {
	t      *Types
	raw    []byte
	snap   *dedupSnapshot
	index  strIndex
	header []byte // the first preparedSumAt bytes, all but the sum
	// where the parts start, and the whole size
	snapLen, rawAt, offsAt, slotsAt, size int
}

// Prepare prepares t, which ParseBase made from raw: it runs the dedup's
// preparation of a base and lays out the result.
func Prepare(t *Types, raw []byte) (*Prepared, error) {
	if !CanPrepare(raw) {
		return nil, errors.New("btf: prepared bases need little-endian BTF on a little-endian host")
	}
	s := t.Strings
	if t.Base != nil || !s.indexed || !s.index.stable {
		return nil, errors.New("btf: Prepare needs the types of ParseBase")
	}
	h, err := parseHeader(raw)
	if err != nil {
		return nil, err
	}
	snap, err := prepareDedup(t)
	if err != nil {
		return nil, err
	}
	p := &Prepared{t: t, raw: raw, snap: snap, index: s.index.packed(), snapLen: snapshotSize(snap)}
	p.rawAt = alignUp(preparedHeader+p.snapLen, rawAlign(len(raw)))
	p.offsAt = alignUp(p.rawAt+len(raw), 8)
	p.slotsAt = alignUp(p.offsAt+4*len(t.offs), 8)
	p.size = p.slotsAt + 8*len(p.index.slots)
	flags := uint64(0)
	if s.deduped {
		flags = 1
	}
	p.header = append(make([]byte, 0, preparedSumAt), preparedMagic...)
	for _, v := range []uint64{preparedVersion, flags, uint64(len(raw)), uint64(h.typeStart), uint64(len(t.words)),
		uint64(h.strStart), uint64(h.strLen), uint64(len(t.offs)), uint64(len(p.index.slots)), uint64(p.index.n),
		uint64(p.rawAt), uint64(p.snapLen)} {
		p.header = binary.LittleEndian.AppendUint64(p.header, v)
	}
	return p, nil
}

// WriteTo writes the prepared base to w in pieces of about pieceBytes.
func (p *Prepared) WriteTo(w io.Writer) (int64, error) {
	n := int64(0)
	err := p.write(func(b []byte) error {
		k, err := w.Write(b)
		n += int64(k)
		return err
	})
	return n, err
}

// write hands the prepared base to out in pieces. The header's sum covers
// parts written after it (preparedSum), so those are encoded twice: once
// summed, once written.
func (p *Prepared) write(out func([]byte) error) error {
	tab := crc32.MakeTable(crc32.Castagnoli)
	sum := crc32.Checksum(p.header, tab)
	summed := pieceWriter{out: func(b []byte) error {
		sum = crc32.Update(sum, tab, b)
		return nil
	}}
	p.parts(&summed, false)
	if summed.err != nil {
		return summed.err
	}
	if summed.at() != p.snapLen+(p.size-p.offsAt) {
		return fmt.Errorf("btf: prepared base's summed parts are %d bytes, %d expected", summed.at(), p.snapLen+(p.size-p.offsAt))
	}
	w := pieceWriter{out: out}
	w.write(p.header)
	w.b = binary.LittleEndian.AppendUint32(w.b, sum)
	w.pad(8)
	p.parts(&w, true)
	if w.err == nil && w.at() != p.size {
		return fmt.Errorf("btf: prepared base is %d bytes, %d expected", w.at(), p.size)
	}
	return w.err
}

// parts writes what follows the header to w, which is at the snapshot's
// start: the snapshot, the raw BTF (if withRaw: what preparedSum does not
// cover, with the padding around it), the type offsets and the index
// slots. It flushes w.
func (p *Prepared) parts(w *pieceWriter, withRaw bool) {
	start := w.at()
	writeSnapshot(w, p.snap)
	if w.at()-start != p.snapLen {
		w.flush()
		if w.err == nil {
			w.err = fmt.Errorf("btf: prepared base's snapshot is %d bytes, %d expected", w.at()-start, p.snapLen)
		}
		return
	}
	if withRaw {
		w.pad(rawAlign(len(p.raw)))
		w.write(p.raw)
		w.pad(8)
	}
	le := binary.LittleEndian
	for _, o := range p.t.offs {
		w.b = le.AppendUint32(w.b, o)
		w.spill()
	}
	w.pad(8)
	for _, e := range p.index.slots {
		w.b = le.AppendUint64(w.b, e)
		w.spill()
	}
	w.flush()
}

// preparedSum is the CRC-32C of the header's fields, the snapshot (snapLen
// bytes after the header) and what follows the raw BTF from offsAt (the
// raw BTF is compared whole with the base, so a base other than the one
// stored is never used). Damage to the summed bytes goes unnoticed only if
// the polynomial divides it: never for a burst of 32 bits or less, else
// with a chance of 2^-32; the tables' and offsets' checks then keep such a
// file from sending the dedup out of bounds or round a cycle.
func preparedSum(data []byte, snapLen, offsAt int) uint32 {
	tab := crc32.MakeTable(crc32.Castagnoli)
	sum := crc32.Update(crc32.Checksum(data[:preparedSumAt], tab), tab, data[preparedHeader:preparedHeader+snapLen])
	return crc32.Update(sum, tab, data[offsAt:])
}

// alignUp rounds n up to a multiple of a, a power of two.
func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }

// LoadPrepared returns the types a Prepared wrote to data, which must
// start 8-byte aligned (a mapping does), if raw is the BTF they were
// prepared from. The types alias data, which must stay mapped and
// unmodified while they and anything taken from them are in use.
//
// The dedup tables are read by each dedup on the types (they are checked
// then, not here: a damaged snapshot makes the dedup prepare the base
// itself). release, if not nil, is called with their bytes once
// LoadPrepared has checked the sum over them, and again after each dedup
// has checked them: a caller that mapped data can drop those pages, read
// again when needed (they would otherwise stay resident from the load on,
// through the part of a module's encode that holds the most).
func LoadPrepared(data, raw []byte, release func([]byte)) (*Types, error) {
	if !CanPrepare(raw) {
		return nil, badPrepared("not little-endian BTF on a little-endian host")
	}
	if len(data) < preparedHeader {
		return nil, badPrepared("no header")
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(data)))%8 != 0 {
		return nil, badPrepared("not 8-byte aligned")
	}
	l, err := preparedLayoutOf(data[:preparedHeader], uint64(len(data)), uint64(len(raw)))
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(data[l.rawAt:l.rawAt+l.rawLen], raw) {
		return nil, badPrepared("prepared from other BTF")
	}
	if preparedSum(data, int(l.snapLen), int(l.offsAt)) != l.sum {
		return nil, badPrepared("checksum mismatch")
	}
	offs := unsafe.Slice((*uint32)(unsafe.Pointer(&data[l.offsAt])), l.nTypes)
	if err := l.checkOffsets(offs, 0, new(uint32)); err != nil {
		return nil, err
	}
	// The dedup tables are decoded, and checked, by each dedup on the base
	// (a damaged snapshot makes it prepare the base itself).
	t := l.types(data)
	t.releasePrep = release
	if release != nil {
		release(t.dedupPrep)
	}
	return t, nil
}

func badPrepared(format string, args ...any) error {
	return fmt.Errorf("btf: prepared base: "+format, args...)
}

// preparedLayout is what a prepared base's header says, checked against
// the file's and the raw BTF's sizes.
type preparedLayout struct {
	flags, rawLen, typeStart, typeWords, strStart, strLen uint64
	nTypes, nSlots, indexN, rawAt, snapLen, offsAt        uint64
	slotsAt, size                                         uint64
	sum                                                   uint32
}

// preparedLayoutOf reads and checks the header hdr of a prepared base of
// size bytes, for raw BTF of rawLen bytes.
func preparedLayoutOf(hdr []byte, size, rawLen uint64) (*preparedLayout, error) {
	if len(hdr) < preparedHeader || string(hdr[:8]) != preparedMagic {
		return nil, badPrepared("no header")
	}
	le := binary.LittleEndian
	var f [12]uint64
	for i := range f {
		f[i] = le.Uint64(hdr[8+8*i:])
	}
	l := &preparedLayout{flags: f[1], rawLen: f[2], typeStart: f[3], typeWords: f[4], strStart: f[5], strLen: f[6],
		nTypes: f[7], nSlots: f[8], indexN: f[9], rawAt: f[10], snapLen: f[11], size: size,
		sum: le.Uint32(hdr[preparedSumAt:])}
	if f[0] != preparedVersion {
		return nil, badPrepared("format version %d, want %d", f[0], preparedVersion)
	}
	if l.snapLen > size || l.rawAt != uint64(alignUp(int(preparedHeader+l.snapLen), rawAlign(int(l.rawLen)))) || l.rawAt > size {
		return nil, badPrepared("raw BTF at %d after a snapshot of %d bytes, in %d", l.rawAt, l.snapLen, size)
	}
	if l.rawLen != rawLen || size-l.rawAt < l.rawLen {
		return nil, badPrepared("prepared from other BTF")
	}
	l.offsAt = uint64(alignUp(int(l.rawAt+l.rawLen), 8))
	if l.nTypes == 0 || l.nTypes > l.typeWords/headerWords || l.nSlots < 2 || l.nSlots > size || l.nSlots&(l.nSlots-1) != 0 || 4*l.nSlots < 5*l.indexN {
		return nil, badPrepared("bad counts")
	}
	l.slotsAt = uint64(alignUp(int(l.offsAt+4*l.nTypes), 8))
	if size < l.slotsAt+8*l.nSlots {
		return nil, badPrepared("%d bytes, want at least %d", size, l.slotsAt+8*l.nSlots)
	}
	if l.typeStart%4 != 0 || l.typeWords == 0 || l.typeWords > math.MaxUint32/4 || l.typeStart+4*l.typeWords > l.rawLen || l.strStart+l.strLen > l.rawLen || l.strLen == 0 {
		return nil, badPrepared("sections outside the BTF")
	}
	return l, nil
}

// checkOffsets checks offs, the type offsets from the first'th on: each
// leaves room for a type's header (headerWords) before the one after it
// and before the end of the type words, which is what reading a type
// (Types.raw, typeAt) needs not to go out of range; *next is the least
// offset the first may have (0 for the first type, else the one before
// plus headerWords), and is left so for the offsets that follow.
func (l *preparedLayout) checkOffsets(offs []uint32, first int, next *uint32) error {
	// typeWords fits a uint32 and holds headerWords words a type at least
	// (preparedLayoutOf), so last does not wrap, nor does o + headerWords.
	last, n := uint32(l.typeWords-headerWords), *next
	for i, o := range offs {
		if o < n || o > last {
			return badPrepared("type %d at word %d", first+i+1, o)
		}
		n = o + headerWords
	}
	*next = n
	return nil
}

// types returns the types of the prepared base data, whose layout is l,
// checked.
func (l *preparedLayout) types(data []byte) *Types {
	stored := data[l.rawAt : l.rawAt+l.rawLen]
	t := &Types{
		words: unsafe.Slice((*uint32)(unsafe.Pointer(&stored[l.typeStart])), l.typeWords),
		offs:  unsafe.Slice((*uint32)(unsafe.Pointer(&data[l.offsAt])), l.nTypes),
		valid: int(l.nTypes),
	}
	t.dedupPrep = data[preparedHeader : preparedHeader+l.snapLen]
	t.Strings = &Strings{
		data:    stored[l.strStart : l.strStart+l.strLen : l.strStart+l.strLen],
		indexed: true,
		deduped: l.flags&1 != 0,
		index: strIndex{stable: true, n: int(l.indexN),
			slots: unsafe.Slice((*uint64)(unsafe.Pointer(&data[l.slotsAt])), l.nSlots)},
	}
	return t
}

// LoadPreparedFrom is LoadPrepared for a prepared base in a file, with the
// same checks: data is the file mapped, file reads the same bytes, and raw
// reads the rawLen bytes of the base BTF. The checks read through file and
// raw in pieces instead of reading data, so that they leave none of its
// pages mapped: an encode then has resident only the parts of the base it
// reads (a small module's, few). They cover the dedup tables too, which a
// dedup on the types then decodes without going over them.
func LoadPreparedFrom(data []byte, file, raw io.ReaderAt, rawLen int64) (*Types, error) {
	if raw == nil {
		return nil, badPrepared("no base to compare with")
	}
	if err := checkPreparedData(data); err != nil {
		return nil, err
	}
	// One allocation for the file's pieces and the base's (compare): a
	// fresh heap page costs a fault.
	bufs := make([]byte, 2*pieceSize)
	s := &pieceReader{r: file, buf: bufs[:pieceSize:pieceSize], other: bufs[pieceSize:], tab: crc32.MakeTable(crc32.Castagnoli)}
	hdr := s.next(preparedHeader)
	if s.err != nil {
		return nil, badPrepared("header: %v", s.err)
	}
	hdr = bytes.Clone(hdr)
	l, err := preparedLayoutOf(hdr, uint64(len(data)), uint64(rawLen))
	if err != nil {
		return nil, err
	}
	var magic [2]byte
	if _, err := raw.ReadAt(magic[:], 0); err != nil || !CanPrepare(magic[:]) {
		return nil, badPrepared("not little-endian BTF")
	}
	s.crc = crc32.Checksum(hdr[:preparedSumAt], s.tab)
	s.at, s.n = preparedHeader, 0 // the sum skips its own bytes
	if err := s.checkTables(l); err != nil {
		return nil, err
	}
	if err := s.compare(l, raw); err != nil {
		return nil, err
	}
	if err := s.checkOffsets(l); err != nil {
		return nil, err
	}
	for s.at+uint64(s.n) < l.size { // the index and the padding before it
		s.next(int(min(pieceSize, l.size-s.at-uint64(s.n))))
	}
	if s.err != nil {
		return nil, badPrepared("reading: %v", s.err)
	}
	if s.crc != l.sum {
		return nil, badPrepared("checksum mismatch")
	}
	t := l.types(data)
	t.prepChecked = true
	return t, nil
}

// LoadPreparedTrusted is LoadPreparedFrom for a file known by other means
// to be unchanged since a LoadPreparedFrom of it with the base passed, the
// base unchanged too (its identity and the base's in a stamp): it makes the
// header's checks, reads the stored BTF's magic and checks the type offsets
// (read through file, 4 bytes a type: reading a type out of range would
// panic), and neither compares the stored BTF, sums the file, nor reads
// the dedup tables and the string index: the reads of those are bounded
// instead (candTable.baseHead and baseEntry, enumIndex.get, strIndex.find),
// so that a file changed behind the caller's back, or crafted, gives wrong
// candidates and string offsets, or an error, never a panic or an endless
// loop.
func LoadPreparedTrusted(data []byte, file io.ReaderAt, rawLen int64) (*Types, error) {
	if err := checkPreparedData(data); err != nil {
		return nil, err
	}
	var hdr [preparedHeader]byte
	if _, err := file.ReadAt(hdr[:], 0); err != nil {
		return nil, badPrepared("header: %v", err)
	}
	l, err := preparedLayoutOf(hdr[:], uint64(len(data)), uint64(rawLen))
	if err != nil {
		return nil, err
	}
	var magic [2]byte
	if _, err := file.ReadAt(magic[:], int64(l.rawAt)); err != nil || !CanPrepare(magic[:]) {
		return nil, badPrepared("not little-endian BTF")
	}
	buf := make([]byte, min(pieceSize, 4*l.nTypes))
	next := uint32(0)
	for i := uint64(0); i < l.nTypes; {
		m := min(l.nTypes-i, uint64(len(buf))/4)
		b := buf[:4*m]
		if _, err := file.ReadAt(b, int64(l.offsAt+4*i)); err != nil {
			return nil, badPrepared("reading: %v", err)
		}
		// buf is aligned for uint32s, as every allocation of 4 bytes or more.
		if err := l.checkOffsets(unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), m), int(i), &next); err != nil {
			return nil, err
		}
		i += m
	}
	t := l.types(data)
	t.prepChecked = true // the dedup reads its tables bounded, unchecked
	return t, nil
}

// checkPreparedData checks what every load of a prepared base needs of
// the host and of data, the file mapped: a little-endian host whose
// table entries have the file's layout, a header, 8-byte alignment.
func checkPreparedData(data []byte) error {
	if !hostLittleEndian() || unsafe.Sizeof(candSlot{}) != 16 || unsafe.Sizeof(candEntry{}) != 12 {
		return badPrepared("not a little-endian host")
	}
	if len(data) < preparedHeader {
		return badPrepared("no header")
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(data)))%8 != 0 {
		return badPrepared("not 8-byte aligned")
	}
	return nil
}

// pieceSize is how much of a prepared base LoadPreparedFrom reads at a
// time.
const pieceSize = 64 << 10

// pieceReader reads a file in pieces of at most pieceSize bytes, in
// order, summing them (CRC-32C) as they are read.
type pieceReader struct {
	r     io.ReaderAt
	buf   []byte
	other []byte // for compare's pieces of the base
	at    uint64 // file offset of buf[0]
	n     int    // bytes of buf handed out
	crc   uint32
	tab   *crc32.Table
	err   error
}

// next returns the next n bytes of the file, n at most pieceSize; they
// are valid until the next call. It returns nil once reading failed.
func (p *pieceReader) next(n int) []byte {
	if p.err != nil {
		return nil
	}
	p.at += uint64(p.n)
	p.n = n
	b := p.buf[:n]
	if _, err := p.r.ReadAt(b, int64(p.at)); err != nil {
		p.err = err
		return nil
	}
	p.crc = crc32.Update(p.crc, p.tab, b)
	return b
}

// skipTo moves to file offset off, past what it reads without summing.
func (p *pieceReader) skipTo(off uint64) {
	p.at, p.n = off, 0
}

// checkTables reads the dedup snapshot and checks its tables as readSnapshot
// does; the enum indexes after them are checked by readSnapshot.
func (p *pieceReader) checkTables(l *preparedLayout) error {
	end := preparedHeader + l.snapLen
	left := func() uint64 { return end - p.at - uint64(p.n) }
	nextID := uint32(min(l.nTypes+1, maxMappedID))
	for range 2 {
		if left() < 40 {
			return badPrepared("dedup tables truncated")
		}
		h := p.next(40)
		if h == nil {
			break
		}
		le := binary.LittleEndian
		nSlots, used, nEntries := le.Uint64(h), le.Uint64(h[8:]), le.Uint64(h[32:])
		if nSlots > left()/16 || nEntries > (left()-16*nSlots)/12 {
			return badPrepared("dedup tables truncated")
		}
		c := tableCheck{nextID: nextID, nEntries: int(nEntries)}
		for k := nSlots; k > 0 && p.err == nil; {
			m := min(k, pieceSize/16)
			b := p.next(int(16 * m))
			if b == nil {
				break
			}
			if err := c.slots(unsafe.Slice((*candSlot)(unsafe.Pointer(&b[0])), m)); err != nil {
				return badPrepared("dedup tables: %v", err)
			}
			k -= m
		}
		for k := nEntries; k > 0 && p.err == nil; {
			m := min(k, pieceSize/12)
			b := p.next(int(12 * m))
			if b == nil {
				break
			}
			// The encoding is the entries' memory image (see readSnapshot);
			// the piece starts 8-byte aligned.
			if err := c.entries(unsafe.Slice((*candEntry)(unsafe.Pointer(&b[0])), m)); err != nil {
				return badPrepared("dedup tables: %v", err)
			}
			k -= m
		}
		if uint64(c.used) != used {
			return badPrepared("dedup tables: %d slots used, the header says %d", c.used, used)
		}
	}
	for p.err == nil && left() > 0 {
		p.next(int(min(pieceSize, left())))
	}
	if p.err != nil {
		return badPrepared("reading: %v", p.err)
	}
	return nil
}

// compare checks that the raw BTF stored at l.rawAt is raw's; it is not
// in the sum.
func (p *pieceReader) compare(l *preparedLayout, raw io.ReaderAt) error {
	other := p.other
	p.skipTo(l.rawAt)
	for off := uint64(0); off < l.rawLen; {
		n := int(min(pieceSize, l.rawLen-off))
		p.at += uint64(p.n)
		p.n = n
		if _, err := p.r.ReadAt(p.buf[:n], int64(p.at)); err != nil {
			return badPrepared("reading: %v", err)
		}
		if _, err := raw.ReadAt(other[:n], int64(off)); err != nil {
			return badPrepared("reading the base: %v", err)
		}
		if !bytes.Equal(p.buf[:n], other[:n]) {
			return badPrepared("prepared from other BTF")
		}
		off += uint64(n)
	}
	p.skipTo(l.offsAt)
	return nil
}

// checkOffsets reads and checks the type offsets.
func (p *pieceReader) checkOffsets(l *preparedLayout) error {
	next := uint32(0)
	for i := uint64(0); i < l.nTypes; {
		m := min(l.nTypes-i, pieceSize/4)
		b := p.next(int(4 * m))
		if b == nil {
			return badPrepared("reading: %v", p.err)
		}
		// The piece starts 8-byte aligned (buf does; offsAt is).
		if err := l.checkOffsets(unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), m), int(i), &next); err != nil {
			return err
		}
		i += m
	}
	return nil
}
