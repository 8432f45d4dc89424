package btf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"
)

// dedupSnapshot is a dedup's state after prep on a base alone: the
// candidate tables with the base's types in them and the indexes of its
// enums. The dedup of split types on a base that carries one (a prepared
// base, see prepared.go) lays its tables over it (overlay), read in place,
// instead of hashing the base's types again (prep) or copying them. The
// tables' libbpf emulation (capacity, grows, insertion order) is part of
// the state; their slot count is not, and does not change a result.
type dedupSnapshot struct {
	table, structTab         candTable
	enumByContent, enumDecls enumIndex
	structNames              structNames
}

// enumIndex is an index of enum entries of the candidate table by a hash
// (see fullEnum): the base's, read in place from a snapshot (keys sorted,
// each key's entries from starts[i] to starts[i+1]), then those added
// since (own).
type enumIndex struct {
	keys    []uint64
	starts  []uint32
	entries []int32
	own     map[uint64][]int32
}

// get returns the entries of key h: the base's, then the own ones. The
// base's part may be damaged (keys out of order, starts out of order or
// past the entries: none is returned for them, or the wrong ones, never a
// slice out of range); its entries are base entries of the candidate
// table (readSnapshot checks that on every decode, the index being
// small), which candTable.entry reads bounded.
func (x *enumIndex) get(h uint64) (base, own []int32) {
	// starts has one more element than keys (readSnapshot).
	if i, ok := slices.BinarySearch(x.keys, h); ok && i+1 < len(x.starts) {
		if s, e := x.starts[i], x.starts[i+1]; s <= e && uint64(e) <= uint64(len(x.entries)) {
			base = x.entries[s:e]
		}
	}
	return base, x.own[h]
}

// add adds entry e under key h.
func (x *enumIndex) add(h uint64, e int32) {
	if x.own == nil {
		x.own = make(map[uint64][]int32)
	}
	x.own[h] = append(x.own[h], e)
}

// sortedKeys returns every key, in order.
func (x *enumIndex) sortedKeys() []uint64 {
	keys := slices.Clone(x.keys)
	for k := range x.own {
		if _, ok := slices.BinarySearch(x.keys, k); !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// prepareDedup returns the snapshot of prep on base.
func prepareDedup(base *Types) (*dedupSnapshot, error) {
	d, err := newDeduper(NewSplitTypes(base), 0, true)
	if err != nil {
		return nil, err
	}
	d.piped = true // fill the struct pass's table too
	if err := d.prep(); err != nil {
		return nil, err
	}
	return &dedupSnapshot{table: d.table.packed(), structTab: d.structTab.packed(),
		enumByContent: *d.enumByContent, enumDecls: *d.enumDecls, structNames: baseStructNames(base)}, nil
}

// baseSnapshot returns the encoded snapshot (writeSnapshot) d's single
// base carries, if any.
func (d *deduper) baseSnapshot() []byte {
	b := d.src.Base
	if b == nil || b.Base != nil || b.dedupPrep == nil || d.start != uint32(b.NextID()) {
		return nil
	}
	return b.dedupPrep
}

// prepFromSnapshot is prep from the base's encoded snapshot: the dedup's
// tables lie over the snapshot's, which stay where they are. It reports
// false, leaving d as it was, when the snapshot does not decode.
func (d *deduper) prepFromSnapshot(b []byte) bool {
	s, err := readSnapshot(b, d.start, d.src.Base.prepChecked)
	if release := d.src.Base.releasePrep; release != nil {
		release(b)
	}
	if err != nil {
		return false
	}
	for id := max(d.lazyBase, 1); id < d.start; id++ { // the lazy base's are already
		d.setCanon(id, id)
	}
	d.table = overlay(&s.table, d.start)
	if d.piped {
		d.structTab = overlay(&s.structTab, d.start)
	}
	d.enumByContent, d.enumDecls = &s.enumByContent, &s.enumDecls
	d.baseNames = &s.structNames
	return true
}

// writeSnapshot encodes s (little endian) to p, at a multiple of 8: each
// table as its slot count, used slots, libbpf capacity, grows, entry
// count, slots (key, head, id) and entries (id, next, parity); then each
// enum index, from an offset that is a multiple of 8 (zeros before it), as
// its key count, entry count, keys in order (8 bytes each), the start of
// each key's entries and their end (4 bytes each), and the entries (4
// bytes each); then, from an offset that is a multiple of 8, the base's
// struct names (writeStructNames).
func writeSnapshot(p *pieceWriter, s *dedupSnapshot) {
	le := binary.LittleEndian
	for _, t := range []*candTable{&s.table, &s.structTab} {
		for _, v := range []int{len(t.slots), t.used, t.libbpfCap, t.grows, len(t.entries)} {
			p.b = le.AppendUint64(p.b, uint64(v))
		}
		for _, sl := range t.slots {
			p.b = le.AppendUint64(p.b, sl.key)
			p.b = le.AppendUint32(p.b, uint32(sl.head))
			p.b = le.AppendUint32(p.b, sl.id)
			p.spill()
		}
		for _, e := range t.entries {
			p.b = le.AppendUint32(p.b, e.id)
			p.b = le.AppendUint32(p.b, uint32(e.next))
			p.b = le.AppendUint32(p.b, uint32(e.parity))
			p.spill()
		}
	}
	for _, x := range []*enumIndex{&s.enumByContent, &s.enumDecls} {
		p.pad(8)
		keys := x.sortedKeys()
		var starts []uint32
		var entries []int32
		for _, k := range keys {
			starts = append(starts, uint32(len(entries)))
			base, own := x.get(k)
			entries = append(append(entries, base...), own...)
		}
		starts = append(starts, uint32(len(entries)))
		p.b = le.AppendUint64(p.b, uint64(len(keys)))
		p.b = le.AppendUint64(p.b, uint64(len(entries)))
		for _, k := range keys {
			p.b = le.AppendUint64(p.b, k)
			p.spill()
		}
		for _, v := range starts {
			p.b = le.AppendUint32(p.b, v)
			p.spill()
		}
		for _, e := range entries {
			p.b = le.AppendUint32(p.b, uint32(e))
			p.spill()
		}
	}
	p.pad(8)
	writeStructNames(p, &s.structNames)
}

// snapshotSize is the length of what writeSnapshot writes for s from an
// offset that is a multiple of 8: where the raw BTF of a prepared
// base goes (Prepare).
func snapshotSize(s *dedupSnapshot) int {
	n := 0
	for _, t := range []*candTable{&s.table, &s.structTab} {
		n += 5*8 + 16*len(t.slots) + 12*len(t.entries)
	}
	for _, x := range []*enumIndex{&s.enumByContent, &s.enumDecls} {
		n = alignUp(n, 8)
		keys, entries := len(x.sortedKeys()), len(x.entries)
		for _, own := range x.own {
			entries += len(own)
		}
		n += 2*8 + 8*keys + 4*(keys+1) + 4*entries
	}
	return alignUp(n, 8) + 8 + 8*len(s.structNames.names)
}

// snapshotReader decodes what writeSnapshot wrote, checking each count
// against the bytes left and each index against what it indexes.
type snapshotReader struct {
	b   []byte
	err error
}

func (r *snapshotReader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// viewAs returns the next n items of type T, in place if the bytes are
// aligned for T, else copied.
func viewAs[T any](r *snapshotReader, n int) []T {
	size, align := int(unsafe.Sizeof(*new(T))), uintptr(unsafe.Alignof(*new(T)))
	if r.err != nil || len(r.b)/size < n {
		r.fail("truncated")
		return nil
	}
	if n == 0 {
		return nil
	}
	b := r.b[:n*size]
	r.b = r.b[n*size:]
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%align == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]T, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(b)), b)
	return out
}

// count reads a count of items of size bytes each, at most what is left.
func (r *snapshotReader) count(size int) int {
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b)/size) {
		r.fail(fmt.Sprintf("count %d past the end", n))
		return 0
	}
	return int(n)
}

func (r *snapshotReader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
	}
}

// readSnapshot decodes a snapshot of a base whose ids end before nextID.
// Its tables alias b where b's alignment allows. Their slots and entries
// are checked unless checked says checkTables did, or the load trusted the
// file (LoadPreparedTrusted): then they are not read here, so a mapped
// file's pages stay where they are, and the dedup's reads of them are
// bounded anyway (candTable.baseHead, baseEntry).
func readSnapshot(b []byte, nextID uint32, checked bool) (*dedupSnapshot, error) {
	if unsafe.Sizeof(candSlot{}) != 16 || unsafe.Sizeof(candEntry{}) != 12 || !hostLittleEndian() {
		return nil, errors.New("table layout is not the encoding's")
	}
	r := &snapshotReader{b: b}
	s := &dedupSnapshot{}
	at := func() int { return len(b) - len(r.b) }
	for _, t := range []*candTable{&s.table, &s.structTab} {
		nSlots := r.count(16)
		t.used, t.libbpfCap, t.grows = int(r.u64()), int(r.u64()), int(r.u64())
		nEntries := r.count(12)
		if nSlots < 2 || nSlots&(nSlots-1) != 0 || 5*t.used > 4*nSlots || t.libbpfCap < 0 || t.grows < 0 || t.grows > 64 {
			r.fail("bad table sizes")
		}
		if r.err != nil {
			return nil, r.err
		}
		// The encoding of slots and entries is their memory image on a
		// little-endian host (the padding after an entry's parity byte
		// included), so they are used in place (the dedup lays its own
		// table over them, see overlay), else copied, then checked.
		t.slots = viewAs[candSlot](r, nSlots)
		t.entries = viewAs[candEntry](r, nEntries)
		if r.err != nil {
			return nil, r.err
		}
		if checked {
			continue
		}
		c := tableCheck{nextID: nextID, nEntries: nEntries}
		if err := c.slots(t.slots); err != nil {
			return nil, err
		}
		if err := c.entries(t.entries); err != nil {
			return nil, err
		}
		if c.used != t.used { // and so at most 4/5 of the slots: probes end at a free one
			return nil, fmt.Errorf("%d slots used, the header says %d", c.used, t.used)
		}
	}
	pad := func() {
		if pad := alignUp(at(), 8) - at(); r.err == nil && pad > 0 {
			if len(r.b) < pad || !allZero(r.b[:pad]) {
				r.fail("bad padding")
				return
			}
			r.b = r.b[pad:]
		}
	}
	// The enum indexes are small (the kernel's: 37 KB), and checked by
	// every dedup that reads them.
	for _, x := range []*enumIndex{&s.enumByContent, &s.enumDecls} {
		if pad(); r.err != nil {
			break
		}
		n := r.count(12) // a key and its start at least
		m := r.count(4)
		x.keys = viewAs[uint64](r, n)
		x.starts = viewAs[uint32](r, n+1)
		x.entries = viewAs[int32](r, m)
		if r.err != nil {
			break
		}
		for i, k := range x.keys {
			if i > 0 && k <= x.keys[i-1] {
				r.fail("enum keys out of order")
			}
		}
		if x.starts[0] != 0 || int(x.starts[n]) != m {
			r.fail("bad enum starts")
		}
		for i := range n {
			if x.starts[i] > x.starts[i+1] {
				r.fail("bad enum starts")
			}
		}
		for _, e := range x.entries {
			if e < 0 || int(e) >= len(s.table.entries) {
				r.fail("bad enum entry")
			}
		}
	}
	pad()
	s.structNames = readStructNames(r)
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Sprintf("%d bytes left over", len(r.b)))
	}
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

// tableCheck checks the slots and entries of a snapshot's table, in as
// many pieces as the caller has them in: that indexes are in range, and
// that each entry's chain goes to older entries (so it ends).
type tableCheck struct {
	nextID   uint32 // the base's ids end before it
	nEntries int
	used     int // slots in use so far
	done     int // entries checked so far
}

func (c *tableCheck) slots(slots []candSlot) error {
	// Unsigned compares keep the loop to branches that are never taken
	// on a good table (a slot is in use or not at random).
	nEntries, nextID, used := uint32(min(c.nEntries, maxMappedID)), c.nextID, 0
	for i := range slots {
		sl := &slots[i]
		if uint32(sl.head+1) > nEntries || sl.id&^multiBit >= nextID { // head in [-1, nEntries)
			return errors.New("bad slot")
		}
		used += int(^uint32(sl.head) >> 31) // head >= 0
	}
	c.used += used
	return nil
}

func (c *tableCheck) entries(entries []candEntry) error {
	// An entry's next is in [-1, its own index); it reads uint32(next+1) <= index.
	nextID, limit := c.nextID, uint32(min(c.done, maxMappedID))
	for i := range entries {
		e := &entries[i]
		if e.id >= nextID || uint32(e.next+1) > limit || e.parity > 1 {
			return errors.New("bad entry")
		}
		limit++
	}
	c.done += len(entries)
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
