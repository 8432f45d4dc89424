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

// TestBaseCache: encodes through a BaseCache give the bytes of an encode
// without one, whether the base is stored (first encode), mapped from the
// cache (next ones, in this process and in a new cache as in a new
// process), or its file is damaged (it is stored again); a cache that
// cannot be written is a warning, not an error.
func TestBaseCache(t *testing.T) {
	dir := t.TempDir()
	baseRes := encodeFixture(t, "types.gcc-dwarf5.so", features.Default())
	baseFile := filepath.Join(dir, "base.btf")
	if err := os.WriteFile(baseFile, baseRes.raw(), 0o644); err != nil {
		t.Fatal(err)
	}
	input := fixturePath(t, "tags.clang-dwarf5.o")
	encodeWith := func(c *BaseCache) (*Result, []byte) {
		t.Helper()
		res, err := Encode(input, Options{Features: features.Default(), Jobs: 2, BasePath: baseFile, BaseCache: c})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := res.Types.Marshal(binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return res, raw
	}
	_, want := encodeWith(nil)

	cacheDir := filepath.Join(dir, "cache")
	cacheFile := func() string {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(cacheDir, "*.btfbase"))
		if len(files) != 1 {
			t.Fatalf("cache holds %v, want one prepared base", files)
		}
		return files[0]
	}
	check := func(step string, c *BaseCache, hit bool) {
		t.Helper()
		res, got := encodeWith(c)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes of split BTF, without the cache %d, not the same", step, len(got), len(want))
		}
		if res.BaseCached != hit {
			t.Errorf("%s: BaseCached = %v, want %v", step, res.BaseCached, hit)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("%s: warnings %q", step, res.Warnings)
		}
	}
	c := NewBaseCache(cacheDir)
	defer c.Close()
	check("first encode", c, false)
	cacheFile()
	check("second encode", c, true)
	fresh := NewBaseCache(cacheDir)
	check("new cache, same directory", fresh, true)
	fresh.Close()

	for _, damage := range []string{"truncated", "flipped"} {
		f := cacheFile()
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if damage == "truncated" {
			data = data[:len(data)/2]
		} else {
			data[len(data)-3] ^= 0x20 // a byte of the string index
		}
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
		d := NewBaseCache(cacheDir)
		check(damage+" file", d, false)
		check(damage+" file, stored again", d, true)
		d.Close()
	}

	blocked := filepath.Join(dir, "blocked")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewBaseCache(filepath.Join(blocked, "cache")) // under a file: cannot be created
	res, got := encodeWith(b)
	if !bytes.Equal(got, want) {
		t.Error("unwritable cache: output differs")
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "base cache") {
		t.Errorf("unwritable cache: warnings %q, want one about the base cache", res.Warnings)
	}
}
