package btf

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// appendCopies returns a non-split Types holding n copies of src, appended as
// if they came from n compile units.
func appendCopies(tb testing.TB, src *Types, n int) *Types {
	tb.Helper()
	all := NewTypes(NewStrings())
	for range n {
		if err := all.Append(src, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return all
}

// checkDedupOfCopies deduplicates n copies of the deduplicated BTF data and
// checks that the result is data again, followed by the VARs and DATASECs of
// the later copies, which dedup never merges.
func checkDedupOfCopies(t *testing.T, data []byte, n int) {
	src, err := Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Dedup(appendCopies(t, src, n))
	if err != nil {
		t.Fatal(err)
	}

	want := kindCounts(src)
	want[KindVar] *= n
	want[KindDatasec] *= n
	got := kindCounts(out)
	for k := KindInt; k <= maxKind; k++ {
		if got[k] != want[k] {
			t.Errorf("%v: got %d, want %d", k, got[k], want[k])
		}
	}

	raw, err := out.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := sectionOf(t, data, 8)
	gotTypes := sectionOf(t, raw, 8)
	if len(gotTypes) < len(wantTypes) || !bytes.Equal(gotTypes[:len(wantTypes)], wantTypes) {
		t.Errorf("the first %d types differ from the input's", src.Len())
	}
	if !bytes.Equal(sectionOf(t, raw, 16), sectionOf(t, data, 16)) {
		t.Errorf("string sections differ")
	}
	// The rest: copies 2..n of each VAR and DATASEC, in input order.
	id := out.FirstID() + TypeID(src.Len())
	for range n - 1 {
		for sid := src.FirstID(); sid < src.NextID(); sid++ {
			if k := src.Kind(sid); k != KindVar && k != KindDatasec {
				continue
			}
			if out.Kind(id) != src.Kind(sid) || out.NameOff(id) != src.NameOff(sid) {
				t.Fatalf("type %d is %v %q, want %v %q", id, out.Kind(id), out.Name(id), src.Kind(sid), src.Name(sid))
			}
			id++
		}
	}
}

// sectionOf returns the section whose offset and length are at header
// offset off (8: types, 16: strings) of little-endian raw BTF.
func sectionOf(tb testing.TB, raw []byte, off int) []byte {
	tb.Helper()
	hl := binary.LittleEndian.Uint32(raw[4:])
	o, l := binary.LittleEndian.Uint32(raw[off:]), binary.LittleEndian.Uint32(raw[off+4:])
	return raw[hl+o : hl+o+l]
}

// TestDedupReferenceTriple deduplicates three copies of pahole's kernel BTF.
func TestDedupReferenceTriple(t *testing.T) {
	checkDedupOfCopies(t, readReference(t, "amd64.default.btf"), 3)
}

// TestDedupDebianDouble deduplicates two copies of the BTF Debian's pahole
// 1.24 (with its older libbpf) put into the corpus kernel.
func TestDedupDebianDouble(t *testing.T) {
	checkDedupOfCopies(t, debianBTF(t), 2)
}
