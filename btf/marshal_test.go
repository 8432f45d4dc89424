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
