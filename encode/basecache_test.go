package encode

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/loader/elffile"
)

// TestBaseCache: encodes through a BaseCache give the bytes of an encode
// without one, whether the base is stored (first encode), mapped from the
// cache (next ones, in this process and in a new cache as in a new
// process), or its file is damaged (it is stored again); a cache that
// cannot be written is a warning, not an error.
func TestBaseCache(t *testing.T) {
	dir := t.TempDir()
	baseFile, input := splitFixture(t, dir)
	encodeWith := func(c *BaseCache) (*Result, []byte) {
		t.Helper()
		return encodeBytes(t, input, Options{Features: features.Default(), Jobs: 2, BasePath: baseFile, BaseCache: c}, binary.LittleEndian)
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
		if len(res.Warnings) != 0 || res.BaseCacheError != nil {
			t.Errorf("%s: warnings %q, cache error %v", step, res.Warnings, res.BaseCacheError)
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

	// Encodes sharing a cache at the same time share its mapping.
	shared := NewBaseCache(cacheDir)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			res, err := Encode(input, Options{Features: features.Default(), Jobs: 2, BasePath: baseFile, BaseCache: shared})
			if err != nil {
				t.Errorf("concurrent encode %d: %v", i, err)
				return
			}
			got, err := res.Types.Marshal(binary.LittleEndian)
			if err != nil || !bytes.Equal(got, want) || !res.BaseCached {
				t.Errorf("concurrent encode %d: %d bytes (%v), cached %v; want the %d of the others, cached", i, len(got), err, res.BaseCached, len(want))
			}
		})
	}
	wg.Wait()
	shared.Close()

	for _, damage := range []string{"truncated", "flipped", "tables flipped"} {
		f := cacheFile()
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch damage {
		case "truncated":
			data = data[:len(data)/2]
		case "flipped":
			data[len(data)-3] ^= 0x20 // a byte of the string index
		default:
			data[112+40+5] ^= 0x04 // a byte of the dedup table's first slot, after the header
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
	if res.BaseCacheError == nil || !strings.Contains(res.BaseCacheError.Error(), "base cache") {
		t.Errorf("unwritable cache: BaseCacheError %v, want one naming the base cache", res.BaseCacheError)
	}
}

// TestBaseCacheCorpusModules: each corpus module encoded on the reference
// base mapped from a BaseCache (its dedup tables copied, not rebuilt) has
// the bytes of the encode on the base loaded plainly, at -j1 and -j2.
func TestBaseCacheCorpusModules(t *testing.T) {
	basePath := corpus.ReferenceFile(t, "amd64.default.btf")
	base, err := LoadBase(basePath)
	if err != nil {
		t.Fatal(err)
	}
	c := NewBaseCache(t.TempDir())
	defer c.Close()
	for _, name := range corpus.Modules() {
		ko := corpus.Module(t, name)
		for _, jobs := range []int{1, 2} {
			_, wantRaw := encodeBytes(t, ko, Options{Features: features.Default(), Jobs: jobs, Base: base}, binary.LittleEndian)
			got, gotRaw := encodeBytes(t, ko, Options{Features: features.Default(), Jobs: jobs, BasePath: basePath, BaseCache: c}, binary.LittleEndian)
			if first := name == corpus.Modules()[0] && jobs == 1; got.BaseCached == first {
				t.Errorf("%s -j%d: BaseCached = %v; want false for the first encode only", name, jobs, got.BaseCached)
			}
			if !bytes.Equal(gotRaw, wantRaw) {
				t.Errorf("%s -j%d: %d bytes through the cache (mapped: %v), %d without", name, jobs, len(gotRaw), got.BaseCached, len(wantRaw))
			}
		}
	}
}

// TestBaseCacheDamagedAnywhere: with one byte of the prepared base changed
// (60 places spread over the file: header, dedup tables, stored BTF, type
// offsets, string index), an encode through a new cache, as in a new
// process, gives the bytes of an encode without the cache, and a changed
// header field keeps the file from being used.
func TestBaseCacheDamagedAnywhere(t *testing.T) {
	dir := t.TempDir()
	baseFile, input := splitFixture(t, dir)
	opts := func(c *BaseCache) Options {
		return Options{Features: features.Default(), Jobs: 1, BasePath: baseFile, BaseCache: c}
	}
	_, want := encodeBytes(t, input, opts(nil), binary.LittleEndian)
	cacheDir := filepath.Join(dir, "cache")
	c := NewBaseCache(cacheDir)
	encodeBytes(t, input, opts(c), binary.LittleEndian)
	c.Close()
	files, _ := filepath.Glob(filepath.Join(cacheDir, "*.btfbase"))
	if len(files) != 1 {
		t.Fatalf("cache holds %v, want one prepared base", files)
	}
	pristine, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		at := 8 + i*(len(pristine)-9)/59 // from the format's fields to the last byte
		bad := bytes.Clone(pristine)
		bad[at] ^= 0x10
		if err := os.WriteFile(files[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		d := NewBaseCache(cacheDir)
		res, got := encodeBytes(t, input, opts(d), binary.LittleEndian)
		d.Close()
		if !bytes.Equal(got, want) {
			t.Errorf("byte %d of %d changed: %d bytes of split BTF, without the cache %d, not the same", at, len(bad), len(got), len(want))
		}
		if res.BaseCached && at < 104 { // the fields the sum covers
			t.Errorf("byte %d of the header changed: the file was used", at)
		}
	}
}

// TestBaseCacheELFBase: a base given as an ELF file's .BTF section (as
// Kbuild passes vmlinux) is found in the cache by reading the section from
// the file, as a raw base file is: the same prepared base serves both, and
// the encodes give the bytes of one without the cache.
func TestBaseCacheELFBase(t *testing.T) {
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("no objcopy")
	}
	dir := t.TempDir()
	baseFile, input := splitFixture(t, dir)
	elfBase := filepath.Join(dir, "vmlinux")
	// Any ELF file will do as the container: the section is what is read.
	if out, err := exec.Command(objcopy, "--add-section", ".BTF="+baseFile, fixturePath(t, "tags.clang-dwarf5.o"), elfBase).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	opts := func(base string, c *BaseCache) Options {
		return Options{Features: features.Default(), Jobs: 2, BasePath: base, BaseCache: c}
	}
	_, want := encodeBytes(t, input, opts(elfBase, nil), binary.LittleEndian)
	cacheDir := filepath.Join(dir, "cache")
	for i, step := range []struct {
		base string
		hit  bool
	}{{elfBase, false}, {elfBase, true}, {baseFile, true}, {elfBase, true}} {
		c := NewBaseCache(cacheDir) // as a new process
		res, got := encodeBytes(t, input, opts(step.base, c), binary.LittleEndian)
		if !bytes.Equal(got, want) {
			t.Errorf("step %d (%s): %d bytes of split BTF, without the cache %d, not the same", i, step.base, len(got), len(want))
		}
		if res.BaseCached != step.hit {
			t.Errorf("step %d (%s): BaseCached = %v, want %v", i, step.base, res.BaseCached, step.hit)
		}
		c.Close()
	}
	c := NewBaseCache(cacheDir)
	defer c.Close()
	if got, looked := c.loadFile(elfBase); got == nil || !looked {
		t.Errorf("loadFile of the ELF base: types %v, looked %v; want them read from the section", got != nil, looked)
	}
}

// BenchmarkBaseCacheReads times the ways a load could read the reference
// base's prepared file and the base itself, both in the page cache: by
// pread in 64 KiB pieces (what btf.LoadPreparedFrom does), with a CRC-32C,
// with larger pieces, hashing the base instead of comparing it with the
// stored copy, and through a mapping.
func BenchmarkBaseCacheReads(b *testing.B) {
	basePath := corpus.ReferenceFile(b, "amd64.default.btf")
	c := NewBaseCache(b.TempDir())
	if _, _, err := c.load(basePath); err != nil {
		b.Fatal(err)
	}
	c.Close()
	files, _ := filepath.Glob(filepath.Join(c.Dir(), "*.btfbase"))
	if len(files) != 1 {
		b.Fatalf("cache holds %v", files)
	}
	open := func(path string) (*os.File, int64) {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		st, err := f.Stat()
		if err != nil {
			b.Fatal(err)
		}
		return f, st.Size()
	}
	file, fileSize := open(files[0])
	base, baseSize := open(basePath)
	tab := crc32.MakeTable(crc32.Castagnoli)
	read := func(f *os.File, size int64, piece int, each func(b []byte)) {
		buf := make([]byte, piece)
		for off := int64(0); off < size; off += int64(piece) {
			p := buf[:min(int64(piece), size-off)]
			if _, err := f.ReadAt(p, off); err != nil {
				b.Fatal(err)
			}
			each(p)
		}
	}
	sum := uint32(0)
	for _, bm := range []struct {
		name string
		run  func()
	}{
		{"file/pread", func() { read(file, fileSize, 64<<10, func([]byte) {}) }},
		{"file/pread+crc32c", func() { read(file, fileSize, 64<<10, func(p []byte) { sum = crc32.Update(sum, tab, p) }) }},
		{"file/pread256K+crc32c", func() { read(file, fileSize, 256<<10, func(p []byte) { sum = crc32.Update(sum, tab, p) }) }},
		{"file/mapped+crc32c", func() {
			data, err := elffile.MapOpen(file)
			if err != nil {
				b.Fatal(err)
			}
			sum = crc32.Update(sum, tab, data)
			elffile.Unmap(data)
		}},
		{"base/pread+crc32c", func() { read(base, baseSize, 64<<10, func(p []byte) { sum = crc32.Update(sum, tab, p) }) }},
		{"base/pread+crc32c+ieee", func() {
			read(base, baseSize, 64<<10, func(p []byte) { sum = crc32.Update(sum, tab, p) ^ crc32.ChecksumIEEE(p) })
		}},
		{"base/compare", func() {
			other := make([]byte, 64<<10)
			off := int64(0)
			read(base, baseSize, 64<<10, func(p []byte) {
				if _, err := base.ReadAt(other[:len(p)], off); err != nil || !bytes.Equal(p, other[:len(p)]) {
					b.Fatal("compare")
				}
				off += int64(len(p))
			})
		}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				bm.run()
			}
		})
	}
}
