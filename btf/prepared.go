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
// encode on the same base maps them instead of computing them (about 25 ms
// of a module's encode). The words and strings of the loaded types alias
// the stored copy; the index is hashed with stableHash. The dedup's prep
// of the base (dedupSnapshot) is stored too.
//
// Layout (little endian; only little-endian hosts and BTF use it): a
// 96-byte header, the raw BTF, then 8-byte aligned the type offsets
// (uint32 each), the index slots (uint64 each) and the dedup snapshot
// (appendSnapshot) to the end.
//
//	 0 magic "BTFGPRE\x01"   48 string section start in the raw BTF
//	 8 format version       56 string section length
//	16 flags (1: deduped)    64 number of types
//	24 raw length           72 index slots (a power of two)
//	32 type section start   80 strings in the index
//	40 type words           88 CRC-32C of bytes 0-87, offsets and slots
const (
	preparedMagic   = "BTFGPRE\x01"
	preparedVersion = 2
	preparedHeader  = 96
)

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
	offsAt := align8(preparedHeader + len(raw))
	slotsAt := align8(offsAt + 4*len(t.offs))
	out := make([]byte, slotsAt+8*len(s.index.slots))
	copy(out, preparedMagic)
	le := binary.LittleEndian
	flags := uint64(0)
	if s.deduped {
		flags = 1
	}
	for i, v := range []uint64{preparedVersion, flags, uint64(len(raw)), uint64(h.typeStart), uint64(len(t.words)),
		uint64(h.strStart), uint64(h.strLen), uint64(len(t.offs)), uint64(len(s.index.slots)), uint64(s.index.n)} {
		le.PutUint64(out[8+8*i:], v)
	}
	copy(out[preparedHeader:], raw)
	for i, o := range t.offs {
		le.PutUint32(out[offsAt+4*i:], o)
	}
	for i, e := range s.index.slots {
		le.PutUint64(out[slotsAt+8*i:], e)
	}
	out = appendSnapshot(out, snap)
	le.PutUint32(out[88:], preparedSum(out, offsAt))
	return out, nil
}

// preparedSum is the CRC-32C of the header's fields and of what follows
// the raw BTF (which is compared whole).
func preparedSum(data []byte, offsAt int) uint32 {
	tab := crc32.MakeTable(crc32.Castagnoli)
	return crc32.Update(crc32.Checksum(data[:88], tab), tab, data[offsAt:])
}

func align8(n int) int { return (n + 7) &^ 7 }

// LoadPrepared returns the types MarshalPrepared stored in data, which must
// start 8-byte aligned (a mapping does), if raw is the BTF they were
// prepared from. The types alias data, which must stay mapped and
// unmodified while they and anything taken from them are in use.
//
// The dedup tables are copied out of data by each dedup on the types;
// release, if not nil, is then called with their bytes, which a caller
// that mapped data can drop from memory (a module's encode would hold the
// 6 MB of the kernel's tables twice).
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
	var f [10]uint64
	for i := range f {
		f[i] = le.Uint64(data[8+8*i:])
	}
	version, flags, rawLen, typeStart, typeWords, strStart, strLen, nTypes, nSlots, indexN :=
		f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]
	if version != preparedVersion {
		return nil, bad("format version %d, want %d", version, preparedVersion)
	}
	if rawLen != uint64(len(raw)) || uint64(len(data)) < preparedHeader+rawLen ||
		!bytes.Equal(data[preparedHeader:preparedHeader+rawLen], raw) {
		return nil, bad("prepared from other BTF")
	}
	offsAt := uint64(align8(preparedHeader + len(raw)))
	if nTypes == 0 || nTypes > rawLen || nSlots < 2 || nSlots > uint64(len(data)) || nSlots&(nSlots-1) != 0 || nSlots < 2*indexN {
		return nil, bad("bad counts")
	}
	slotsAt := uint64(align8(int(offsAt + 4*nTypes)))
	if uint64(len(data)) < slotsAt+8*nSlots {
		return nil, bad("%d bytes, want at least %d", len(data), slotsAt+8*nSlots)
	}
	if preparedSum(data, int(offsAt)) != le.Uint32(data[88:]) {
		return nil, bad("checksum mismatch")
	}
	if typeStart%4 != 0 || typeWords == 0 || typeStart+4*typeWords > rawLen || strStart+strLen > rawLen || strLen == 0 {
		return nil, bad("sections outside the BTF")
	}
	stored := data[preparedHeader : preparedHeader+rawLen]
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
	t.dedupPrep, t.releasePrep = data[slotsAt+8*nSlots:], release
	t.Strings = &Strings{
		data:    stored[strStart : strStart+strLen : strStart+strLen],
		indexed: true,
		deduped: flags&1 != 0,
		index: strIndex{stable: true, n: int(indexN),
			slots: unsafe.Slice((*uint64)(unsafe.Pointer(&data[slotsAt])), nSlots)},
	}
	return t, nil
}
