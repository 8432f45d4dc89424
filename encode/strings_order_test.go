package encode

import (
	"bytes"
	"encoding/binary"
	"os"
	"slices"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// btfStrings returns the strings of raw little-endian BTF's string
// section, in order.
func btfStrings(t *testing.T, raw []byte) [][]byte {
	t.Helper()
	if len(raw) < 24 {
		t.Fatalf("BTF of %d bytes", len(raw))
	}
	hdr := binary.LittleEndian.Uint32(raw[4:])
	off, n := binary.LittleEndian.Uint32(raw[16:]), binary.LittleEndian.Uint32(raw[20:])
	return bytes.Split(raw[hdr+off:hdr+off+n], []byte{0})
}

// TestCorpusStringSectionAsPahole checks what docs/pahole-compat.md and
// docs/howto-distro.md say of the bytes: the corpus kernel's BTF has the
// size of pahole's and the same strings, but in another order, so name
// offsets differ and the files are not byte-identical.
func TestCorpusStringSectionAsPahole(t *testing.T) {
	run := encodeCorpusDefault(t)
	ref, err := os.ReadFile(corpus.ReferenceFile(t, "amd64.default.btf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.raw) != len(ref) {
		t.Errorf("size %d, pahole's %d", len(run.raw), len(ref))
	}
	ours, theirs := btfStrings(t, run.raw), btfStrings(t, ref)
	if slices.EqualFunc(ours, theirs, bytes.Equal) {
		t.Fatal("the string sections are equal: the docs' \"not byte-identical\" is out of date")
	}
	slices.SortFunc(ours, bytes.Compare)
	slices.SortFunc(theirs, bytes.Compare)
	if !slices.EqualFunc(ours, theirs, bytes.Equal) {
		t.Errorf("the string sections hold different strings (%d and %d)", len(ours), len(theirs))
	}
}
