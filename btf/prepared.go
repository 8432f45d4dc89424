package btf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
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
// 112-byte header, the dedup snapshot (appendSnapshot), then from rawAt
// the raw BTF and, 8-byte aligned, the type offsets (uint32 each) and the
// index slots (uint64 each) to the end.
//
//	 0 magic "BTFGPRE\x01"   56 string section length
//	 8 format version       64 number of types
//	16 flags (1: deduped)    72 index slots (a power of two)
//	24 raw length           80 strings in the index
//	32 type section start   88 rawAt
//	40 type words           96 snapshot length
//	48 string section start 104 CRC-32C of bytes 0-103, the snapshot,
//	                            the offsets and the slots
//
// The snapshot comes first, and a large base's raw BTF starts on a 2 MiB
// boundary (rawAlign), because a mapped file is paged in by whole page
// cache folios (up to 2 MiB): what an encode reads
// all along (the types, strings, offsets and index) then shares no folio
// with the snapshot, which is dropped from the load to the dedup's start
// (LoadPrepared's release), and ends with the file, so no folio maps
// bytes past it.
const (
	preparedMagic   = "BTFGPRE\x01"
	preparedVersion = 3
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
// stored with MarshalPrepared.
func ParseBase(raw []byte) (*Types, error) {
	t, err := Parse(raw, nil)
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

// MarshalPrepared returns the prepared form of t, which ParseBase made from
// raw.
func MarshalPrepared(t *Types, raw []byte) ([]byte, error) {
	if !CanPrepare(raw) {
		return nil, errors.New("btf: prepared bases need little-endian BTF on a little-endian host")
	}
	s := t.Strings
	if t.Base != nil || !s.indexed || !s.index.stable {
		return nil, errors.New("btf: MarshalPrepared needs the types of ParseBase")
	}
	h, err := parseHeader(raw)
	if err != nil {
		return nil, err
	}
	snap, err := prepareDedup(t)
	if err != nil {
		return nil, err
	}
	out := appendSnapshot(make([]byte, preparedHeader), snap)
	snapLen := len(out) - preparedHeader
	rawAt := alignUp(len(out), rawAlign(len(raw)))
	offsAt := alignUp(rawAt+len(raw), 8)
	slotsAt := alignUp(offsAt+4*len(t.offs), 8)
	out = append(out, make([]byte, slotsAt+8*len(s.index.slots)-len(out))...)
	copy(out, preparedMagic)
	le := binary.LittleEndian
	flags := uint64(0)
	if s.deduped {
		flags = 1
	}
	for i, v := range []uint64{preparedVersion, flags, uint64(len(raw)), uint64(h.typeStart), uint64(len(t.words)),
		uint64(h.strStart), uint64(h.strLen), uint64(len(t.offs)), uint64(len(s.index.slots)), uint64(s.index.n),
		uint64(rawAt), uint64(snapLen)} {
		le.PutUint64(out[8+8*i:], v)
	}
	copy(out[rawAt:], raw)
	for i, o := range t.offs {
		le.PutUint32(out[offsAt+4*i:], o)
	}
	for i, e := range s.index.slots {
		le.PutUint64(out[slotsAt+8*i:], e)
	}
	le.PutUint32(out[preparedSumAt:], preparedSum(out, snapLen, offsAt))
	return out, nil
}

// preparedSum is the CRC-32C of the header's fields, the snapshot (snapLen
// bytes after the header) and what follows the raw BTF from offsAt (the
// raw BTF is compared whole).
func preparedSum(data []byte, snapLen, offsAt int) uint32 {
	tab := crc32.MakeTable(crc32.Castagnoli)
	sum := crc32.Update(crc32.Checksum(data[:preparedSumAt], tab), tab, data[preparedHeader:preparedHeader+snapLen])
	return crc32.Update(sum, tab, data[offsAt:])
}

// alignUp rounds n up to a multiple of a, a power of two.
func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }

// LoadPrepared returns the types MarshalPrepared stored in data, which must
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
	bad := func(format string, args ...any) error {
		return fmt.Errorf("btf: prepared base: "+format, args...)
	}
	if !CanPrepare(raw) {
		return nil, bad("not little-endian BTF on a little-endian host")
	}
	if len(data) < preparedHeader || string(data[:8]) != preparedMagic {
		return nil, bad("no header")
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(data)))%8 != 0 {
		return nil, bad("not 8-byte aligned")
	}
	le := binary.LittleEndian
	var f [12]uint64
	for i := range f {
		f[i] = le.Uint64(data[8+8*i:])
	}
	version, flags, rawLen, typeStart, typeWords, strStart, strLen, nTypes, nSlots, indexN, rawAt, snapLen :=
		f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11]
	if version != preparedVersion {
		return nil, bad("format version %d, want %d", version, preparedVersion)
	}
	size := uint64(len(data))
	if snapLen > size || rawAt < preparedHeader+snapLen || rawAt%8 != 0 || rawAt > size {
		return nil, bad("raw BTF at %d after a snapshot of %d bytes, in %d", rawAt, snapLen, size)
	}
	if rawLen != uint64(len(raw)) || size-rawAt < rawLen || !bytes.Equal(data[rawAt:rawAt+rawLen], raw) {
		return nil, bad("prepared from other BTF")
	}
	offsAt := uint64(alignUp(int(rawAt+rawLen), 8))
	if nTypes == 0 || nTypes > rawLen || nSlots < 2 || nSlots > size || nSlots&(nSlots-1) != 0 || nSlots < 2*indexN {
		return nil, bad("bad counts")
	}
	slotsAt := uint64(alignUp(int(offsAt+4*nTypes), 8))
	if size < slotsAt+8*nSlots {
		return nil, bad("%d bytes, want at least %d", size, slotsAt+8*nSlots)
	}
	if preparedSum(data, int(snapLen), int(offsAt)) != le.Uint32(data[preparedSumAt:]) {
		return nil, bad("checksum mismatch")
	}
	if typeStart%4 != 0 || typeWords == 0 || typeStart+4*typeWords > rawLen || strStart+strLen > rawLen || strLen == 0 {
		return nil, bad("sections outside the BTF")
	}
	stored := data[rawAt : rawAt+rawLen]
	t := &Types{
		words: unsafe.Slice((*uint32)(unsafe.Pointer(&stored[typeStart])), typeWords),
		offs:  unsafe.Slice((*uint32)(unsafe.Pointer(&data[offsAt])), nTypes),
		valid: int(nTypes),
	}
	for i, o := range t.offs {
		if uint64(o) >= typeWords || i > 0 && o <= t.offs[i-1] {
			return nil, bad("type %d at word %d", i+1, o)
		}
	}
	// The dedup tables are decoded, and checked, by each dedup on the base
	// (a damaged snapshot makes it prepare the base itself).
	t.dedupPrep, t.releasePrep = data[preparedHeader:preparedHeader+snapLen], release
	if release != nil {
		release(t.dedupPrep)
	}
	t.Strings = &Strings{
		data:    stored[strStart : strStart+strLen : strStart+strLen],
		indexed: true,
		deduped: flags&1 != 0,
		index: strIndex{stable: true, n: int(indexN),
			slots: unsafe.Slice((*uint64)(unsafe.Pointer(&data[slotsAt])), nSlots)},
	}
	return t, nil
}
