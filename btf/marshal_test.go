package btf

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestMarshalRoundTripReference parses pahole's kernel BTF and writes it back
// byte for byte.
func TestMarshalRoundTripReference(t *testing.T) {
	data := readReference(t, "amd64.default.btf")
	ty, err := Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ty.Len() != 100050 {
		t.Errorf("got %d types, want 100050", ty.Len())
	}
	out, err := ty.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Fatalf("marshalled %d bytes differ from the %d parsed", len(out), len(data))
	}
}

// BenchmarkParseReference parses pahole's kernel BTF (100k types).
func BenchmarkParseReference(b *testing.B) {
	data := readReference(b, "amd64.default.btf")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ty *Types
	for range b.N {
		var err error
		if ty, err = Parse(data, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ty.Len()), "ns/type")
}

// BenchmarkMarshalReference writes pahole's kernel BTF.
func BenchmarkMarshalReference(b *testing.B) {
	data := readReference(b, "amd64.default.btf")
	ty, err := Parse(data, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for range b.N {
		if _, err := ty.Marshal(binary.LittleEndian); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildIndexReference indexes the strings of pahole's kernel BTF,
// as the base of a module's encode is indexed.
func BenchmarkBuildIndexReference(b *testing.B) {
	data := readReference(b, "amd64.default.btf")
	ty, err := Parse(data, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := *ty.Strings
		s.indexed = false
		s.BuildIndex()
	}
}
