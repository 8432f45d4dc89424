package encode

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/features"
)

// TestBaseOfTheOtherByteOrder: split BTF on a base of the other byte order
// is refused naming both, in either direction.
func TestBaseOfTheOtherByteOrder(t *testing.T) {
	dir := t.TempDir()
	le, be := fixturePath(t, "types.clang-aarch64.o"), fixturePath(t, "types.clang-aarch64_be.o")
	for _, c := range []struct {
		base, input string
		order       binary.ByteOrder
		want        string
	}{
		{le, be, binary.LittleEndian, "the input is big-endian, but its base BTF"},
		{be, le, binary.BigEndian, "the input is little-endian, but its base BTF"},
	} {
		_, raw := encodeBytes(t, c.base, Options{Features: features.Default()}, c.order)
		basePath := filepath.Join(dir, filepath.Base(c.base)+".btf")
		if err := os.WriteFile(basePath, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		base, err := LoadBase(basePath)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Encode(c.input, Options{Features: features.Default(), Base: base, BasePath: basePath})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: error %v, want %q", c.input, basePath, err, c.want)
		}
	}
}
