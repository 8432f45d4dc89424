package encode

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/features"
)

// splitFixture writes a fixture's BTF to dir as a base and returns its
// path and that of a fixture to encode on it.
func splitFixture(t *testing.T, dir string) (baseFile, input string) {
	t.Helper()
	baseRes := encodeFixture(t, "types.gcc-dwarf5.so", features.Default())
	baseFile = filepath.Join(dir, "base.btf")
	if err := os.WriteFile(baseFile, baseRes.raw(), 0o644); err != nil {
		t.Fatal(err)
	}
	return baseFile, fixturePath(t, "tags.clang-dwarf5.o")
}

// TestBasePath: a base named by Options.BasePath (loaded beside the input)
// gives the bytes of the same base passed loaded as Options.Base; a broken
// base file is reported, naming it, before a missing input.
func TestBasePath(t *testing.T) {
	dir := t.TempDir()
	baseFile, input := splitFixture(t, dir)

	base, err := LoadBase(baseFile)
	if err != nil {
		t.Fatal(err)
	}
	_, wantRaw := encodeBytes(t, input, Options{Features: features.Default(), Jobs: 2, Base: base}, binary.LittleEndian)
	got, gotRaw := encodeBytes(t, input, Options{Features: features.Default(), Jobs: 2, BasePath: baseFile}, binary.LittleEndian)
	if got.Types.FirstID() != base.NextID() {
		t.Errorf("split BTF starts at id %d, want %d (after the base)", got.Types.FirstID(), base.NextID())
	}
	if !bytes.Equal(gotRaw, wantRaw) {
		t.Errorf("BasePath gives %d bytes of split BTF, Base %d bytes, not the same", len(gotRaw), len(wantRaw))
	}

	broken := filepath.Join(dir, "broken.btf")
	if err := os.WriteFile(broken, []byte{0x9f, 0xeb, 1, 0, 24}, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Encode(filepath.Join(dir, "missing.o"), Options{Features: features.Default(), BasePath: broken})
	if err == nil || !strings.Contains(err.Error(), "base BTF") || !strings.Contains(err.Error(), broken) {
		t.Errorf("broken base and missing input: got %v, want the base's error naming %s", err, broken)
	}
}
