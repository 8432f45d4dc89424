package btf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// smallBase is raw BTF of a few types, little endian.
func smallBase(t testing.TB) []byte {
	t.Helper()
	ty := NewTypes(NewStrings())
	s := ty.Strings.Add
	i := ty.AddInt(s("int"), 4, IntSigned, 0, 32)
	p := ty.AddRef(KindPtr, 0, i)
	ty.AddStruct(false, s("pair"), 16, []Member{{Name: s("a"), Type: i}, {Name: s("next"), Type: p, BitOffset: 64}})
	ty.AddRef(KindTypedef, s("pair_t"), i)
	raw, err := ty.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// marshalPrepared returns the whole prepared form of t, which ParseBase
// made from raw, as a Prepared writes it.
func marshalPrepared(t *Types, raw []byte) ([]byte, error) {
	p, err := Prepare(t, raw)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, p.size)
	err = p.write(func(b []byte) error {
		out = append(out, b...)
		return nil
	})
	return out, err
}

// encodeSnapshot returns what writeSnapshot writes for s.
func encodeSnapshot(s *dedupSnapshot) []byte {
	var out []byte
	p := pieceWriter{out: func(b []byte) error {
		out = append(out, b...)
		return nil
	}}
	writeSnapshot(&p, s)
	p.flush()
	return out
}

// prepare parses raw with ParseBase and returns it with its prepared form.
func prepare(t testing.TB, raw []byte) (*Types, []byte) {
	t.Helper()
	parsed, err := ParseBase(raw)
	if err != nil {
		t.Fatal(err)
	}
	data, err := marshalPrepared(parsed, raw)
	if err != nil {
		t.Fatal(err)
	}
	return parsed, data
}

// checkPreparedRoundTrip: the loaded types marshal to raw again, and every
// string of raw is found at the offset the parsed table finds it.
func checkPreparedRoundTrip(t *testing.T, raw []byte) {
	t.Helper()
	parsed, data := prepare(t, raw)
	loaded, err := LoadPrepared(data, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := loaded.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, raw) {
		t.Errorf("loaded types marshal to %d bytes that differ from the %d prepared", len(out), len(raw))
	}
	if loaded.Len() != parsed.Len() || loaded.Strings.Size() != parsed.Strings.Size() {
		t.Errorf("loaded %d types, %d string bytes; parsed %d, %d", loaded.Len(), loaded.Strings.Size(), parsed.Len(), parsed.Strings.Size())
	}
	n := 0
	parsed.Strings.forEach(func(off uint32, str string) {
		want, _ := parsed.Strings.Find(str)
		got, ok := loaded.Strings.Find(str)
		if !ok || got != want {
			if n++; n <= 5 {
				t.Errorf("Find(%q) = %d, %v; parsed table: %d", str, got, ok, want)
			}
		}
	})
	if _, ok := loaded.Strings.Find("no such string in any BTF"); ok {
		t.Error("Find of an absent string succeeded")
	}
	// A split table on the loaded base finds base strings there.
	split := NewSplitTypes(loaded)
	if off := split.Strings.Add("int"); int(off) >= loaded.Strings.Size() {
		t.Errorf("split Add(int) = %d, a new string instead of the base's", off)
	}
}

func TestPreparedRoundTrip(t *testing.T) { checkPreparedRoundTrip(t, smallBase(t)) }

// TestPreparedRoundTripReference: the same on pahole's kernel BTF, whose
// raw bytes start on a 2 MiB boundary, after the dedup snapshot, and whose
// index ends the file (see rawAlign).
func TestPreparedRoundTripReference(t *testing.T) {
	raw := readReference(t, "amd64.default.btf")
	checkPreparedRoundTrip(t, raw)
	parsed, data := prepare(t, raw)
	rawAt := binary.LittleEndian.Uint64(data[88:])
	snapLen := binary.LittleEndian.Uint64(data[96:])
	nSlots, nStrings := binary.LittleEndian.Uint64(data[72:]), binary.LittleEndian.Uint64(data[80:])
	slotsEnd := alignUp(alignUp(int(rawAt)+len(raw), 8)+4*parsed.Len(), 8) + 8*int(nSlots)
	if rawAt%(2<<20) != 0 || rawAt < preparedHeader+snapLen || slotsEnd != len(data) {
		t.Errorf("raw BTF at %d after a %d-byte snapshot, index ending at %d of %d bytes; want it 2 MiB aligned, the index last",
			rawAt, snapLen, slotsEnd, len(data))
	}
	// The stored index is packed: the fewest slots that keep at most 4/5
	// used (101,967 strings: 2^17 slots, where an index built for
	// insertion has 2^18).
	if nStrings != uint64(parsed.Strings.index.n) || 4*nSlots < 5*nStrings || 4*(nSlots/2) >= 5*nStrings {
		t.Errorf("stored index: %d slots for %d strings (the built one %d for %d); want the fewest at most 4/5 used",
			nSlots, nStrings, len(parsed.Strings.index.slots), parsed.Strings.index.n)
	}
}

// pieceRecorder keeps what is written to it and the largest write.
type pieceRecorder struct {
	data    []byte
	largest int
	failAt  int // fail the write that would pass this many bytes (0: never)
}

var errRecorderFull = errors.New("recorder full")

func (r *pieceRecorder) Write(b []byte) (int, error) {
	if r.failAt > 0 && len(r.data)+len(b) > r.failAt {
		return 0, errRecorderFull
	}
	r.data = append(r.data, b...)
	r.largest = max(r.largest, len(b))
	return len(b), nil
}

// TestPreparedWrittenInPieces: on pahole's kernel BTF, a Prepared writes
// in pieces of about pieceBytes the whole file (marshalPrepared), which loads;
// a write error ends it with that error; ParseBase reads the types and
// strings where raw has them; and preparing and writing allocate less
// than the file (before the writer, they allocated three times it: the
// parsed copy, the tables at twice their size, the file).
func TestPreparedWrittenInPieces(t *testing.T) {
	raw := readReference(t, "amd64.default.btf")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	parsed, err := ParseBase(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(parsed, raw)
	if err != nil {
		t.Fatal(err)
	}
	n, err := p.WriteTo(io.Discard)
	runtime.ReadMemStats(&after)
	if err != nil || n != int64(p.size) {
		t.Fatalf("WriteTo wrote %d bytes (err %v), want %d", n, err, p.size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc >= uint64(p.size) {
		t.Errorf("parsing, preparing and writing allocated %d bytes, the file is %d", alloc, p.size)
	}
	within := func(b, outer []byte) bool {
		lo, hi := uintptr(unsafe.Pointer(unsafe.SliceData(outer))), uintptr(unsafe.Pointer(unsafe.SliceData(outer)))+uintptr(len(outer))
		at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		return at >= lo && at+uintptr(len(b)) <= hi
	}
	if !within(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(parsed.words))), 4*len(parsed.words)), raw) ||
		!within(parsed.Strings.data, raw) {
		t.Error("ParseBase copied the types or strings of little-endian BTF")
	}
	var rec pieceRecorder
	if _, err := p.WriteTo(&rec); err != nil {
		t.Fatal(err)
	}
	want, err := marshalPrepared(parsed, raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rec.data, want) {
		t.Errorf("WriteTo wrote %d bytes that differ from the whole file's %d", len(rec.data), len(want))
	}
	if rec.largest > pieceBytes+16 {
		t.Errorf("largest write %d bytes, want about %d", rec.largest, pieceBytes)
	}
	if _, err := LoadPrepared(want, raw, nil); err != nil {
		t.Errorf("written prepared base does not load: %v", err)
	}
	for _, at := range []int{100, 3 << 20, 8 << 20, len(want) - 1} {
		failing := pieceRecorder{failAt: at}
		if _, err := p.WriteTo(&failing); !errors.Is(err, errRecorderFull) {
			t.Errorf("a write failing past byte %d: error %v", at, err)
		}
	}
}

// TestPreparedRejects: a prepared base is refused, with an error and no
// panic, for other BTF, when truncated, when a byte of its offsets or
// index changes, and when misaligned.
func TestPreparedRejects(t *testing.T) {
	raw := smallBase(t)
	_, data := prepare(t, raw)
	other := bytes.Clone(raw)
	other[len(other)-2] ^= 1 // a byte of the last string
	if _, err := LoadPrepared(data, other, nil); err == nil || !strings.Contains(err.Error(), "other BTF") {
		t.Errorf("other BTF: %v", err)
	}
	for n := range len(data) {
		if _, err := LoadPrepared(data[:n:n], raw, nil); err == nil {
			t.Fatalf("truncated to %d of %d bytes: loaded", n, len(data))
		}
	}
	rawAt := int(binary.LittleEndian.Uint64(data[88:]))
	snapEnd := preparedHeader + int(binary.LittleEndian.Uint64(data[96:]))
	offsAt := alignUp(rawAt+len(raw), 8)
	for at := preparedHeader; at < len(data); at++ { // snapshot, offsets and index
		if at == snapEnd {
			at = offsAt // past the padding and the raw BTF
		}
		bad := bytes.Clone(data)
		bad[at] ^= 0x40
		if _, err := LoadPrepared(bad, raw, nil); err == nil {
			t.Fatalf("byte %d of %d changed: loaded", at, len(data))
		}
	}
	for at := 8; at < preparedHeader; at++ { // the header fields
		bad := bytes.Clone(data)
		bad[at] ^= 0x10
		if _, err := LoadPrepared(bad, raw, nil); err == nil && at < preparedSumAt {
			t.Errorf("header byte %d changed: loaded", at)
		}
	}
	buf := make([]byte, len(data)+4)
	copy(buf[4:], data)
	if _, err := LoadPrepared(buf[4:], raw, nil); err == nil {
		t.Error("misaligned data loaded")
	}
}

// TestPreparedReleasesTables: LoadPrepared, once it has checked their sum,
// and each dedup on the loaded base, once it has checked them, hand the
// bytes of the dedup tables to the release function (a mapped cache drops
// them); the dedup is the one on the base parsed.
func TestPreparedReleasesTables(t *testing.T) {
	raw := smallBase(t)
	parsed, data := prepare(t, raw)
	var released [][]byte
	loaded, err := LoadPrepared(data, raw, func(b []byte) { released = append(released, b) })
	if err != nil {
		t.Fatal(err)
	}
	if len(released) != 1 || !bytes.Equal(released[0], loaded.dedupPrep) {
		t.Fatalf("after the load: release called %d times; want once, with the tables", len(released))
	}
	dedupOn := func(base *Types) []byte {
		t.Helper()
		split := NewSplitTypes(base)
		str := split.Strings.Add
		split.AddRef(KindPtr, 0, 1)
		split.AddStruct(false, str("pair"), 16, []Member{{Name: str("a"), Type: 1}, {Name: str("next"), Type: split.FirstID(), BitOffset: 64}})
		split.AddRef(KindTypedef, str("pair_t"), 1)
		out, err := Dedup(split)
		if err != nil {
			t.Fatal(err)
		}
		b, err := out.Marshal(binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := dedupOn(parsed)
	for i := range 2 {
		if got := dedupOn(loaded); !bytes.Equal(got, want) {
			t.Errorf("dedup %d on the loaded base: %d bytes, on the parsed one %d, not the same", i, len(got), len(want))
		}
		if len(released) != i+2 || !bytes.Equal(released[i+1], loaded.dedupPrep) || len(released[i+1]) == 0 {
			t.Fatalf("after dedup %d: release called %d times; want once at the load, then once per dedup, with the %d bytes of the tables", i, len(released), len(loaded.dedupPrep))
		}
	}
}

// smallSnapshot returns the encoded dedup snapshot of smallBase and the id
// after its last type.
func smallSnapshot(tb testing.TB) ([]byte, uint32) {
	tb.Helper()
	base, err := ParseBase(smallBase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	snap, err := prepareDedup(base)
	if err != nil {
		tb.Fatal(err)
	}
	return encodeSnapshot(snap), uint32(base.NextID())
}

// TestSnapshotDecodeRejects: the dedup snapshot of a prepared base decodes
// back to what prep makes, and a truncated or altered one gives an error
// or tables whose indexes are in range, never a panic.
func TestSnapshotDecodeRejects(t *testing.T) {
	enc, next := smallSnapshot(t)
	got, err := readSnapshot(enc, next, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeSnapshot(got), enc) {
		t.Error("decoded snapshot encodes differently")
	}
	for n := range len(enc) {
		if _, err := readSnapshot(enc[:n], next, false); err == nil {
			t.Fatalf("truncated to %d of %d bytes: decoded", n, len(enc))
		}
	}
	for at := range enc {
		bad := bytes.Clone(enc)
		bad[at] ^= 0xff
		s, err := readSnapshot(bad, next, false)
		if err != nil {
			continue
		}
		for _, tab := range []*candTable{&s.table, &s.structTab} {
			for _, sl := range tab.slots {
				if int(sl.head) >= len(tab.entries) || sl.id&^multiBit >= next {
					t.Fatalf("byte %d altered: slot %+v out of range", at, sl)
				}
			}
		}
	}
}

// FuzzLoadPrepared feeds LoadPrepared arbitrary prepared-base files for a
// fixed base BTF: it must return an error, or types that marshal back to
// the base, look strings up, and carry a dedup snapshot that a dedup of
// split types on them decodes or falls back from, without panicking.
func FuzzLoadPrepared(f *testing.F) {
	raw := smallBase(f)
	_, data := prepare(f, raw)
	f.Add(data)
	f.Add(data[:len(data)-7])
	f.Fuzz(func(t *testing.T, in []byte) {
		data := make([]byte, len(in)) // 8-byte aligned, as a mapping is
		copy(data, in)
		base, err := LoadPrepared(data, raw, nil)
		if err != nil {
			return
		}
		out, err := base.Marshal(binary.LittleEndian)
		if err != nil || !bytes.Equal(out, raw) {
			t.Fatalf("loaded base marshals to %d bytes (%v), want the %d prepared", len(out), err, len(raw))
		}
		for _, s := range []string{"int", "pair", "next", "absent"} {
			base.Strings.Find(s)
		}
		split := NewSplitTypes(base)
		str := split.Strings.Add
		first := split.FirstID()
		split.AddRef(KindPtr, 0, 1)
		split.AddStruct(false, str("pair"), 16, []Member{{Name: str("a"), Type: 1}, {Name: str("next"), Type: first, BitOffset: 64}})
		split.AddRef(KindTypedef, str("pair_t"), 1)
		if _, err := Dedup(split); err != nil {
			t.Fatalf("dedup on the loaded base: %v", err)
		}
	})
}

// FuzzReadSnapshot feeds readSnapshot arbitrary bytes: it must return an
// error, or tables whose lookups stay in range.
func FuzzReadSnapshot(f *testing.F) {
	enc, next := smallSnapshot(f)
	f.Add(enc)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := readSnapshot(b, next, false)
		if err != nil {
			return
		}
		for _, tab := range []*candTable{&s.table, &s.structTab} {
			for _, sl := range tab.slots {
				for _, id := range tab.candidates(sl.key) {
					if id >= next {
						t.Fatalf("candidate %d past the base's %d types", id, next-1)
					}
				}
			}
		}
	})
}

// TestPreparedFromRejects: LoadPreparedFrom, which checks a prepared base
// by reading it in pieces, loads what LoadPrepared loads, with the dedup
// tables marked checked and a dedup on it giving the same bytes, and
// refuses what LoadPrepared refuses: other BTF, a truncated file, a
// changed byte of the snapshot, offsets or index, a misaligned mapping.
func TestPreparedFromRejects(t *testing.T) {
	raw := smallBase(t)
	_, data := prepare(t, raw)
	load := func(data, raw []byte) (*Types, error) {
		return LoadPreparedFrom(data, bytes.NewReader(data), bytes.NewReader(raw), int64(len(raw)))
	}
	got, err := load(data, raw)
	if err != nil {
		t.Fatal(err)
	}
	want, err := LoadPrepared(data, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !got.prepChecked || want.prepChecked {
		t.Errorf("prepChecked %v and %v, want true for LoadPreparedFrom only", got.prepChecked, want.prepChecked)
	}
	dedupOn := func(base *Types) []byte {
		t.Helper()
		split := NewSplitTypes(base)
		str := split.Strings.Add
		split.AddRef(KindPtr, 0, 1)
		split.AddStruct(false, str("pair"), 16, []Member{{Name: str("a"), Type: 1}, {Name: str("next"), Type: split.FirstID(), BitOffset: 64}})
		out, err := Dedup(split)
		if err != nil {
			t.Fatal(err)
		}
		b, err := out.Marshal(binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(dedupOn(got), dedupOn(want)) {
		t.Error("dedup on the base loaded in pieces differs")
	}
	other := bytes.Clone(raw)
	other[len(other)-2] ^= 1
	if _, err := load(data, other); err == nil || !strings.Contains(err.Error(), "other BTF") {
		t.Errorf("other BTF: %v", err)
	}
	for n := range len(data) {
		if _, err := load(data[:n:n], raw); err == nil {
			t.Fatalf("truncated to %d of %d bytes: loaded", n, len(data))
		}
	}
	rawAt := int(binary.LittleEndian.Uint64(data[88:]))
	snapEnd := preparedHeader + int(binary.LittleEndian.Uint64(data[96:]))
	offsAt := alignUp(rawAt+len(raw), 8)
	for at := preparedHeader; at < len(data); at++ {
		if at == snapEnd {
			at = offsAt
		}
		bad := bytes.Clone(data)
		bad[at] ^= 0x40
		if _, err := load(bad, raw); err == nil {
			t.Fatalf("byte %d of %d changed: loaded", at, len(data))
		}
	}
	for at := 8; at < preparedSumAt; at++ {
		bad := bytes.Clone(data)
		bad[at] ^= 0x10
		if _, err := load(bad, raw); err == nil {
			t.Errorf("header byte %d changed: loaded", at)
		}
	}
	buf := make([]byte, len(data)+4)
	copy(buf[4:], data)
	if _, err := load(buf[4:], raw); err == nil {
		t.Error("misaligned data loaded")
	}
}

// BenchmarkPreparedChecks times the checks LoadPreparedFrom makes of a
// prepared reference base beside its reads: the dedup tables' slots and
// entries, the type offsets; and the whole load from files in the page
// cache.
func BenchmarkPreparedChecks(b *testing.B) {
	raw := readReference(b, "amd64.default.btf")
	_, data := prepare(b, raw)
	l, err := preparedLayoutOf(data[:preparedHeader], uint64(len(data)), uint64(len(raw)))
	if err != nil {
		b.Fatal(err)
	}
	nextID := uint32(min(l.nTypes+1, maxMappedID))
	nSlots := binary.LittleEndian.Uint64(data[preparedHeader:])
	nEntries := binary.LittleEndian.Uint64(data[preparedHeader+32:])
	slots := unsafe.Slice((*candSlot)(unsafe.Pointer(&data[preparedHeader+40])), nSlots)
	entries := unsafe.Slice((*candEntry)(unsafe.Pointer(&data[preparedHeader+40+16*nSlots])), nEntries)
	b.Run("slots", func(b *testing.B) {
		for b.Loop() {
			c := tableCheck{nextID: nextID, nEntries: int(nEntries)}
			if err := c.slots(slots); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("entries", func(b *testing.B) {
		for b.Loop() {
			c := tableCheck{nextID: nextID, nEntries: int(nEntries)}
			if err := c.entries(entries); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("offsets", func(b *testing.B) {
		offs := unsafe.Slice((*uint32)(unsafe.Pointer(&data[l.offsAt])), l.nTypes)
		for b.Loop() {
			if err := l.checkOffsets(offs, 0, new(uint32)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		dir := b.TempDir()
		dataFile, rawFile := filepath.Join(dir, "prepared"), filepath.Join(dir, "raw")
		if err := os.WriteFile(dataFile, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(rawFile, raw, 0o644); err != nil {
			b.Fatal(err)
		}
		df, err := os.Open(dataFile)
		if err != nil {
			b.Fatal(err)
		}
		defer df.Close()
		rf, err := os.Open(rawFile)
		if err != nil {
			b.Fatal(err)
		}
		defer rf.Close()
		b.SetBytes(int64(len(data) + len(raw)))
		for b.Loop() {
			if _, err := LoadPreparedFrom(data, df, rf, int64(len(raw))); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The load a stamp trusts: no compare, and no checks of what the
	// dedup reads bounded (LoadPreparedTrusted).
	for _, bm := range []struct {
		name string
		load func(f *os.File) error
	}{
		{"trusted", func(f *os.File) error { _, err := LoadPreparedTrusted(data, f, int64(len(raw))); return err }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "prepared")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			for b.Loop() {
				if err := bm.load(f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// readCounter is an io.ReaderAt over data that records the ranges read.
type readCounter struct {
	data  []byte
	reads [][2]int // [from, to)
}

func (r *readCounter) ReadAt(p []byte, off int64) (int, error) {
	r.reads = append(r.reads, [2]int{int(off), int(off) + len(p)})
	return bytes.NewReader(r.data).ReadAt(p, off)
}

// TestPreparedTrusted: LoadPreparedTrusted loads what LoadPreparedFrom
// loads while reading through the file only the header, the stored BTF's
// magic and the type offsets: not a byte of the dedup tables or the
// string index. It refuses a truncated file, another length of BTF, a
// changed header field or stored magic, and type offsets out of order, out
// of the type words or closer than a type's header; with any other byte of
// the tables, offsets or index changed, it loads or refuses, and a dedup
// and lookups on what it loads do not panic, and give types that pass
// Validate or an error (the test's timeout catches a loop).
func TestPreparedTrusted(t *testing.T) {
	raw := smallBase(t)
	_, data := prepare(t, raw)
	l, err := preparedLayoutOf(data[:preparedHeader], uint64(len(data)), uint64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	snapEnd := int(preparedHeader + l.snapLen)
	r := &readCounter{data: data}
	got, err := LoadPreparedTrusted(data, r, int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rd := range r.reads {
		inTables := rd[0] < snapEnd && rd[1] > preparedHeader
		inIndex := rd[1] > int(l.slotsAt)
		inBTF := rd[0] < int(l.rawAt+l.rawLen) && rd[1] > int(l.rawAt)+2
		if inTables || inIndex || inBTF {
			t.Errorf("read bytes %d to %d: of the tables (%d to %d), the stored BTF past its magic (%d to %d) or the index (from %d)",
				rd[0], rd[1], preparedHeader, snapEnd, l.rawAt, l.rawAt+l.rawLen, l.slotsAt)
		}
	}
	if !got.prepChecked {
		t.Error("tables not marked checked")
	}
	want, err := LoadPreparedFrom(data, bytes.NewReader(data), bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := dedupSmall(t, got), dedupSmall(t, want); g == nil || !bytes.Equal(g, w) {
		t.Errorf("dedup on the trusted load: %d bytes, on LoadPreparedFrom's %d, not the same", len(g), len(w))
	}
	load := func(data []byte, rawLen int) (*Types, error) {
		return LoadPreparedTrusted(data, bytes.NewReader(data), int64(rawLen))
	}
	if _, err := load(data, len(raw)+1); err == nil {
		t.Error("another length of BTF loaded")
	}
	for n := range len(data) {
		if _, err := load(data[:n:n], len(raw)); err == nil {
			t.Fatalf("truncated to %d of %d bytes: loaded", n, len(data))
		}
	}
	// A header field the layout does not bound (flags, the start of the
	// types or the length of the strings within the stored BTF, the
	// index's count) may change unnoticed: the damage loop below covers
	// them.
	for at := 8; at < preparedSumAt; at++ {
		bad := bytes.Clone(data)
		bad[at] ^= 0x10
		if _, err := load(bad, len(raw)); err == nil && (at < 16 || at >= 24) && at != 32 && at != 56 && at != 80 {
			t.Errorf("header byte %d changed: loaded", at)
		}
	}
	bad := bytes.Clone(data)
	bad[l.rawAt] ^= 0xff
	if _, err := load(bad, len(raw)); err == nil {
		t.Error("stored BTF without its magic loaded")
	}
	le := binary.LittleEndian
	if l.nTypes != 4 || l.typeWords != 19 {
		t.Fatalf("%d types in %d words, want 4 in 19", l.nTypes, l.typeWords)
	}
	for _, offs := range [][4]uint32{{0, 3, 3, 10}, {0, 4, 2, 10}, {0, 3, 5, 10}, {0, 3, 6, 17}, {1 << 31, 3, 6, 9}, {0, 3, 6, 1<<32 - 1}} {
		bad := bytes.Clone(data)
		for j, o := range offs {
			le.PutUint32(bad[l.offsAt+4*uint64(j):], o)
		}
		if _, err := load(bad, len(raw)); err == nil {
			t.Errorf("offsets %v: loaded", offs)
		}
	}
	// Damage anywhere in the header, tables, offsets and index.
	for at := 8; at < len(data); at++ {
		switch at {
		case preparedSumAt:
			at = preparedHeader
		case snapEnd:
			at = int(l.offsAt)
		}
		for _, flip := range []byte{0x01, 0x10, 0x80, 0xff} {
			bad := bytes.Clone(data)
			bad[at] ^= flip
			base, err := load(bad, len(raw))
			if err != nil {
				continue
			}
			for _, s := range []string{"int", "pair", "next", "pair_t", "absent", "a"} {
				base.Strings.Find(s)
			}
			if out := dedupSmall(nil, base); out != nil {
				if split, err := Parse(out, base); err != nil {
					t.Errorf("byte %d ^ %#x: the dedup's output does not parse: %v", at, flip, err)
				} else if err := split.Validate(); err != nil {
					t.Errorf("byte %d ^ %#x: the dedup's output is not valid BTF: %v", at, flip, err)
				}
			}
		}
	}
}

// dedupSmall dedups split types on base, a smallBase loaded, and returns
// their BTF, or nil if the dedup fails (a test failure if t is not nil).
func dedupSmall(t *testing.T, base *Types) []byte {
	split := NewSplitTypes(base)
	str := split.Strings.Add
	first := split.FirstID()
	split.AddInt(str("int"), 4, IntSigned, 0, 32)
	split.AddRef(KindPtr, 0, 1)
	split.AddStruct(false, str("pair"), 16, []Member{{Name: str("a"), Type: 1}, {Name: str("next"), Type: first + 1, BitOffset: 64}})
	split.AddRef(KindTypedef, str("pair_t"), first)
	out, err := Dedup(split)
	if err == nil {
		var b []byte
		if b, err = out.Marshal(binary.LittleEndian); err == nil {
			return b
		}
	}
	if t != nil {
		t.Fatal(err)
	}
	return nil
}

// FuzzLoadPreparedTrusted patches a prepared small base anywhere but its
// stored BTF (which no load parses again) and loads it trusted: the load
// must refuse it, or give types on which lookups and a dedup end without
// a panic, with an error or BTF that parses and validates.
func FuzzLoadPreparedTrusted(f *testing.F) {
	raw := smallBase(f)
	_, pristine := prepare(f, raw)
	l, err := preparedLayoutOf(pristine[:preparedHeader], uint64(len(pristine)), uint64(len(raw)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(preparedHeader+40), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint32(l.offsAt), []byte{3, 0, 0, 0})
	f.Add(uint32(l.slotsAt), bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, at uint32, patch []byte) {
		// at counts the bytes outside the stored BTF: the header's fields
		// (not the magic or version), the snapshot, the offsets, the index.
		outside := []int{8, int(l.rawAt), int(l.offsAt), len(pristine)}
		pos := int(at) % (outside[1] - outside[0] + outside[3] - outside[2])
		if pos += outside[0]; pos >= outside[1] {
			pos += outside[2] - outside[1]
		}
		data := bytes.Clone(pristine)
		for i, b := range patch {
			p := pos + i
			if p >= outside[1] && p < outside[2] || p >= len(data) {
				break
			}
			data[p] = b
		}
		base, err := LoadPreparedTrusted(data, bytes.NewReader(data), int64(len(raw)))
		if err != nil {
			return
		}
		for _, s := range []string{"int", "pair", "next", "pair_t", "absent", "a"} {
			base.Strings.Find(s)
		}
		if out := dedupSmall(nil, base); out != nil {
			split, err := Parse(out, base)
			if err != nil {
				t.Fatalf("the dedup's output does not parse: %v", err)
			}
			if err := split.Validate(); err != nil {
				t.Fatalf("the dedup's output is not valid BTF: %v", err)
			}
		}
	})
}
