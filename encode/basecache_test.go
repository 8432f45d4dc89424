package encode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/atomicfile"
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

// stampedCache returns a BaseCache on dir as a new process would have,
// whose clock runs skew ahead of the real one (a stamp's entries are
// trusted only once the files' times are older than their recording by
// more than stampMargin), with a count of the loads that read the base.
func stampedCache(dir string, skew time.Duration) (*BaseCache, *int) {
	c := NewBaseCache(dir)
	c.now = func() time.Time { return time.Now().Add(skew) }
	reads := new(int)
	c.baseRead = func(string) { *reads++ }
	return c, reads
}

// rewriteInPlace writes data over the file at path, in place (the same
// inode), until its identity differs from was: a write within the same
// tick of the file system's clock may leave its times as they were.
func rewriteInPlace(t *testing.T, path string, data []byte, was fileID) {
	t.Helper()
	for range 100 {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if id, _ := fileIDOf(st); id != was {
			if id.ino != was.ino {
				t.Fatalf("%s: inode %d, was %d: not rewritten in place", path, id.ino, was.ino)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: identity unchanged by rewrites", path)
}

// readStampFile returns the stamp of the cache directory, failing the
// test if there is none.
func readStampFile(t *testing.T, cacheDir string) stamp {
	t.Helper()
	s := (&BaseCache{dir: cacheDir}).readStamp()
	if s == nil {
		t.Fatal("no stamp in the cache directory")
	}
	return s
}

// TestBaseCacheStamp: a load that checked the base whole records it in the
// stamp, and the next loads, as new processes, neither read nor compare
// the base (raw or in an ELF file) while it and the prepared file are
// unchanged, with the bytes of an encode without the cache. A racy entry
// (a file changed within stampMargin of its recording), a damaged stamp,
// one naming a file outside the directory, one others may write, a base
// rewritten in place or a prepared file replaced makes the load check the
// base whole, which records an entry trusted by the load after it.
func TestBaseCacheStamp(t *testing.T) {
	if _, ok := fileIDOf(statOf(t, os.Args[0])); !ok {
		t.Skip("no file identities on this platform")
	}
	dir := t.TempDir()
	rawBase, input := splitFixture(t, dir)
	bases := []string{rawBase}
	if objcopy, err := exec.LookPath("objcopy"); err == nil {
		elfBase := filepath.Join(dir, "vmlinux")
		if out, err := exec.Command(objcopy, "--add-section", ".BTF="+rawBase, fixturePath(t, "tags.clang-dwarf5.o"), elfBase).CombinedOutput(); err != nil {
			t.Fatalf("objcopy: %v\n%s", err, out)
		}
		bases = append(bases, elfBase)
	}
	for _, base := range bases {
		t.Run(filepath.Base(base), func(t *testing.T) {
			opts := func(c *BaseCache) Options {
				return Options{Features: features.Default(), Jobs: 2, BasePath: base, BaseCache: c}
			}
			_, want := encodeBytes(t, input, opts(nil), binary.LittleEndian)
			cacheDir := filepath.Join(t.TempDir(), "cache")
			stampPath := filepath.Join(cacheDir, stampName)
			// step encodes through a new cache whose clock is skew ahead
			// and checks its output, hit and reads of the base.
			step := func(what string, skew time.Duration, hit bool, reads int) {
				t.Helper()
				c, n := stampedCache(cacheDir, skew)
				defer c.Close()
				res, got := encodeBytes(t, input, opts(c), binary.LittleEndian)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes of split BTF, without the cache %d, not the same", what, len(got), len(want))
				}
				if res.BaseCached != hit || *n != reads {
					t.Errorf("%s: BaseCached %v, base read by %d loads; want %v, %d", what, res.BaseCached, *n, hit, reads)
				}
			}
			later := time.Minute // the files are old enough to be trusted
			step("first encode", later, false, 1)
			if _, err := os.Stat(stampPath); err == nil {
				t.Error("a stamp recorded by an encode that stored the base")
			}
			step("second encode", later, true, 1)
			entry := readStampFile(t, cacheDir)[0]
			step("stamped", later, true, 0)
			step("stamped, again", later, true, 0)

			// In one process, the second load on a trusted entry maps
			// nothing again and reads nothing of the base.
			c, n := stampedCache(cacheDir, later)
			for i := range 2 {
				res, got := encodeBytes(t, input, opts(c), binary.LittleEndian)
				if !bytes.Equal(got, want) || !res.BaseCached || *n != 0 {
					t.Errorf("one process, load %d: output equal %v, BaseCached %v, base read by %d loads", i, bytes.Equal(got, want), res.BaseCached, *n)
				}
			}
			c.Close()

			// Racy: the files changed within the margin of the recording.
			if err := os.Remove(stampPath); err != nil {
				t.Fatal(err)
			}
			step("recorded within the margin", -time.Minute, true, 1)
			if _, err := os.Stat(stampPath); err == nil {
				t.Error("a racy entry was written")
			}
			racy := entry
			racy.recorded = entry.base.ctime + int64(stampMargin)/2
			writeStamp(t, stampPath, stamp{racy})
			step("racy entry", later, true, 1)
			step("racy entry, checked again", later, true, 0)

			// A damaged stamp, or one not to be trusted, is ignored.
			good, err := os.ReadFile(stampPath)
			if err != nil {
				t.Fatal(err)
			}
			outside := entry
			outside.name = "../" + entry.name
			for _, bad := range []struct {
				what string
				data []byte
				mode os.FileMode
			}{
				{"stamp with a byte changed", flipped(good, len(good)/2), 0o644},
				{"stamp truncated", good[:len(good)-1], 0o644},
				{"empty stamp", nil, 0o644},
				{"stamp others may write", good, 0o666},
				{"stamp naming another directory", stamp{outside}.marshal(), 0o644},
			} {
				if err := os.WriteFile(stampPath, bad.data, bad.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(stampPath, bad.mode); err != nil {
					t.Fatal(err)
				}
				step(bad.what, later, true, 1)
				step(bad.what+", recorded again", later, true, 0)
			}
			if os.Geteuid() == 0 { // a stamp another user owns
				if err := os.Chown(stampPath, 65534, 65534); err != nil {
					t.Fatal(err)
				}
				step("stamp another user owns", later, true, 1)
				step("stamp another user owns, recorded again", later, true, 0)
			}

			// The prepared file replaced (stored again by another process).
			files, _ := filepath.Glob(filepath.Join(cacheDir, "*.btfbase"))
			if len(files) != 1 {
				t.Fatalf("cache holds %v, want one prepared base", files)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := atomicfile.WriteFile(files[0], data, 0o644); err != nil {
				t.Fatal(err)
			}
			step("prepared file replaced", later, true, 1)
			step("prepared file replaced, recorded again", later, true, 0)

			// The base rewritten in place, its bytes unchanged: only its
			// identity tells, and the base is compared again.
			orig, err := os.ReadFile(base)
			if err != nil {
				t.Fatal(err)
			}
			rewriteInPlace(t, base, orig, readStampFile(t, cacheDir)[0].base)
			step("base rewritten", later, true, 1)
			step("base rewritten, recorded again", later, true, 0)
		})
	}
}

// TestBaseCacheStampChangedBase: a base rewritten in place with other bytes
// of the same length is not taken for the one stamped. On the reference
// base, whose middle fileName does not hash, the changed base has the
// prepared file's name, and the compare the stamp no longer skips finds
// it is other BTF: the encode prepares the new base, with the bytes of an
// encode on it without the cache.
func TestBaseCacheStampChangedBase(t *testing.T) {
	ref := corpus.ReferenceFile(t, "amd64.default.btf")
	ko := corpus.Module(t, "tcp_bbr")
	raw, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(base, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(t.TempDir(), "cache")
	opts := func(c *BaseCache) Options {
		return Options{Features: features.Default(), Jobs: 2, BasePath: base, BaseCache: c}
	}
	for i, want := range []struct {
		hit   bool
		reads int
	}{{false, 1}, {true, 1}, {true, 0}} {
		c, n := stampedCache(cacheDir, time.Minute)
		res, _ := encodeBytes(t, ko, opts(c), binary.LittleEndian)
		c.Close()
		if res.BaseCached != want.hit || *n != want.reads {
			t.Fatalf("encode %d: BaseCached %v, base read by %d loads; want %v, %d", i, res.BaseCached, *n, want.hit, want.reads)
		}
	}
	// A letter of a name in the middle of the string section changed.
	le := binary.LittleEndian
	hdrLen, strOff, strLen := le.Uint32(raw[4:]), le.Uint32(raw[16:]), le.Uint32(raw[20:])
	at := int(hdrLen + strOff + strLen/2)
	for raw[at] < 'a' || raw[at] > 'y' {
		at++
	}
	if at < keyBytes || at >= len(raw)-keyBytes {
		t.Fatalf("byte %d of %d is hashed by fileName", at, len(raw))
	}
	changed := bytes.Clone(raw)
	changed[at]++
	name := func(b []byte) string {
		n, err := fileName(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if name(changed) != name(raw) {
		t.Fatal("the changed base has another prepared file name")
	}
	rewriteInPlace(t, base, changed, readStampFile(t, cacheDir)[0].base)
	_, want := encodeBytes(t, ko, opts(nil), binary.LittleEndian)
	c, n := stampedCache(cacheDir, time.Minute)
	defer c.Close()
	res, got := encodeBytes(t, ko, opts(c), binary.LittleEndian)
	if res.BaseCached || *n != 1 {
		t.Errorf("changed base: BaseCached %v, base read by %d loads; want false, 1", res.BaseCached, *n)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("changed base: %d bytes of split BTF, without the cache %d, not the same", len(got), len(want))
	}
}

// TestBaseCacheStampConcurrent: loads of several bases at once, each in a
// cache of its own as in processes of a make -j, give the bytes of an
// encode without the cache and leave a whole stamp, which trusts the
// bases it holds.
func TestBaseCacheStampConcurrent(t *testing.T) {
	dir := t.TempDir()
	baseFile, input := splitFixture(t, dir)
	raw, err := os.ReadFile(baseFile)
	if err != nil {
		t.Fatal(err)
	}
	var bases []string
	for i := range 4 { // copies: other files, the same prepared base
		p := filepath.Join(dir, fmt.Sprintf("base%d.btf", i))
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		bases = append(bases, p)
	}
	_, want := encodeBytes(t, input, Options{Features: features.Default(), Jobs: 1, BasePath: baseFile}, binary.LittleEndian)
	cacheDir := filepath.Join(dir, "cache")
	for round := range 3 {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				c, _ := stampedCache(cacheDir, time.Minute)
				defer c.Close()
				res, err := Encode(input, Options{Features: features.Default(), Jobs: 1, BasePath: bases[i%len(bases)], BaseCache: c})
				if err != nil {
					t.Errorf("round %d, encode %d: %v", round, i, err)
					return
				}
				got, err := res.Types.Marshal(binary.LittleEndian)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("round %d, encode %d: %d bytes (%v), want the %d without the cache", round, i, len(got), err, len(want))
				}
			})
		}
		wg.Wait()
	}
	s := readStampFile(t, cacheDir)
	if len(s) == 0 || len(s) > len(bases) {
		t.Errorf("stamp of %d entries for %d base files", len(s), len(bases))
	}
	// An entry may be stale: another encode stored the prepared file
	// again (a new inode) after the entry was recorded, and the last
	// stamp written kept it. A load then checks the base whole once and
	// records it again, and the load after it trusts the entry.
	for _, p := range bases {
		c, _ := stampedCache(cacheDir, time.Minute)
		got, _ := c.loadFile(p)
		c.Close()
		if got == nil {
			t.Errorf("%s: not loaded from the cache", p)
			continue
		}
		c, n := stampedCache(cacheDir, time.Minute)
		if got, _ := c.loadFile(p); got == nil || *n != 0 {
			t.Errorf("%s: loaded %v after a load that recorded its entry, base read by %d loads", p, got != nil, *n)
		}
		c.Close()
	}
}

// TestBaseCacheStampFile: a stamp reads back as written, keeps one entry
// per base file, the newest first, and at most maxStampEntries; any byte
// changed or a length other than a whole stamp's is refused.
func TestBaseCacheStampFile(t *testing.T) {
	var s stamp
	for i := range maxStampEntries + 5 {
		s = s.with(stampEntry{recorded: int64(1000 + i), base: fileID{dev: 1, ino: uint64(i % (maxStampEntries + 2)), size: 10, mtime: 2, ctime: 3},
			btfLen: 10, cache: fileID{dev: 1, ino: 99, size: 100, mtime: 4, ctime: 5}, name: fmt.Sprintf("%08x-%d.btfbase", i, 10)})
	}
	if len(s) != maxStampEntries || s[0].recorded != 1000+maxStampEntries+4 {
		t.Fatalf("%d entries, the first recorded at %d", len(s), s[0].recorded)
	}
	seen := map[uint64]bool{}
	for _, e := range s {
		if seen[e.base.ino] {
			t.Errorf("two entries for inode %d", e.base.ino)
		}
		seen[e.base.ino] = true
	}
	b := s.marshal()
	if len(b) != stampMaxSize {
		t.Errorf("%d bytes, want %d", len(b), stampMaxSize)
	}
	back, err := parseStamp(b)
	if err != nil || !slices.Equal(back, s) {
		t.Fatalf("read back %d entries (%v), wrote %d", len(back), err, len(s))
	}
	for at := range b {
		if _, err := parseStamp(flipped(b, at)); err == nil {
			t.Fatalf("byte %d of %d changed: parsed", at, len(b))
		}
	}
	for n := range len(b) {
		if _, err := parseStamp(b[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: parsed", n, len(b))
		}
	}
	for _, name := range []string{"", ".x.btfbase", "a/b.btfbase", "a.btf", strings.Repeat("a", stampNameField) + ".btfbase"} {
		e := s[0]
		e.name = name
		if _, err := parseStamp(stamp{e}.marshal()); err == nil {
			t.Errorf("name %q: parsed", name)
		}
	}
}

// flipped returns a copy of b with a bit of byte at changed.
func flipped(b []byte, at int) []byte {
	b = bytes.Clone(b)
	b[at] ^= 0x08
	return b
}

// writeStamp writes s as the stamp at path.
func writeStamp(t *testing.T, path string, s stamp) {
	t.Helper()
	if err := os.WriteFile(path, s.marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func statOf(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// trustedFixture returns a base file and a module to encode on it: the
// corpus reference base and tcp_bbr when available, else the fixture
// base and object of splitFixture.
func trustedFixture(t *testing.T, dir string) (base, input string, corpusBase bool) {
	ref, err := corpus.Reference("amd64.default.btf")
	ko, kerr := corpus.ModulePath("tcp_bbr")
	if err == nil && kerr == nil {
		return ref, ko, true
	}
	base, input = splitFixture(t, dir)
	return base, input, false
}

// stampTrusted encodes through a new cache in cacheDir until the stamp
// holds a trusted entry for base, and returns the cache's prepared file
// and that entry.
func stampTrusted(t *testing.T, cacheDir string, opts func(*BaseCache) Options, input string) (string, stampEntry) {
	t.Helper()
	for range 2 { // stores the base, then checks it whole and records it
		c, _ := stampedCache(cacheDir, time.Minute)
		encodeBytes(t, input, opts(c), binary.LittleEndian)
		c.Close()
	}
	files, _ := filepath.Glob(filepath.Join(cacheDir, "*.btfbase"))
	if len(files) != 1 {
		t.Fatalf("cache holds %v, want one prepared base", files)
	}
	return files[0], readStampFile(t, cacheDir)[0]
}

// preparedRanges returns where the dedup tables ([0], from the header to
// the stored BTF) and the string index ([1], to the end) lie in a
// prepared base, and the type offsets ([2]), from its header.
func preparedRanges(t *testing.T, data []byte) [3][2]int {
	t.Helper()
	le := binary.LittleEndian
	if len(data) < 112 {
		t.Fatal("no prepared header")
	}
	rawLen, nTypes, nSlots := int(le.Uint64(data[24:])), int(le.Uint64(data[64:])), int(le.Uint64(data[72:]))
	rawAt, snapLen := int(le.Uint64(data[88:])), int(le.Uint64(data[96:]))
	offsAt := (rawAt + rawLen + 7) &^ 7
	slotsAt := (offsAt + 4*nTypes + 7) &^ 7
	if slotsAt+8*nSlots != len(data) {
		t.Fatalf("prepared base of %d bytes, its header says %d", len(data), slotsAt+8*nSlots)
	}
	return [3][2]int{{112, 112 + snapLen}, {slotsAt, len(data)}, {offsAt, offsAt + 4*nTypes}}
}

// TestBaseCacheTrustedReads: a load the stamp trusts reads, through the
// prepared file's descriptor, neither its dedup tables nor its string
// index (the types alias the mapping), nor the base, and gives the bytes
// of an encode without the cache.
func TestBaseCacheTrustedReads(t *testing.T) {
	if _, ok := fileIDOf(statOf(t, os.Args[0])); !ok {
		t.Skip("no file identities on this platform")
	}
	dir := t.TempDir()
	base, input, _ := trustedFixture(t, dir)
	opts := func(c *BaseCache) Options {
		return Options{Features: features.Default(), Jobs: 2, BasePath: base, BaseCache: c}
	}
	_, want := encodeBytes(t, input, opts(nil), binary.LittleEndian)
	cacheDir := filepath.Join(dir, "cache")
	file, _ := stampTrusted(t, cacheDir, opts, input)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := preparedRanges(t, data)
	c, baseReads := stampedCache(cacheDir, time.Minute)
	defer c.Close()
	var reads [][2]int64
	c.fileRead = func(name string, off int64, n int) { reads = append(reads, [2]int64{off, off + int64(n)}) }
	for i := range 2 { // a new mapping, then the same one
		res, got := encodeBytes(t, input, opts(c), binary.LittleEndian)
		if !bytes.Equal(got, want) || !res.BaseCached || *baseReads != 0 {
			t.Fatalf("load %d: output equal %v, BaseCached %v, base read by %d loads", i, bytes.Equal(got, want), res.BaseCached, *baseReads)
		}
	}
	if len(reads) == 0 {
		t.Fatal("no reads of the prepared file seen")
	}
	for _, rd := range reads {
		for k, what := range []string{"dedup tables", "string index"} {
			if rd[0] < int64(r[k][1]) && rd[1] > int64(r[k][0]) {
				t.Errorf("read bytes %d to %d of the %s (%d to %d)", rd[0], rd[1], what, r[k][0], r[k][1])
			}
		}
	}
}

// TestBaseCacheTrustedDamaged: a prepared base damaged where a trusted
// load does not look (bytes of the dedup tables, type offsets and string
// index overwritten 4 ways at 50 places each, and whole tables made to
// loop: every slot in use, every chain to itself), its stamp forged to trust
// it, gives an encode that ends (within a minute each) with an error or
// BTF that passes Validate, never a panic; on the corpus base when
// available.
func TestBaseCacheTrustedDamaged(t *testing.T) {
	if _, ok := fileIDOf(statOf(t, os.Args[0])); !ok {
		t.Skip("no file identities on this platform")
	}
	dir := t.TempDir()
	base, input, corpusBase := trustedFixture(t, dir)
	t.Logf("base %s (corpus: %v), module %s", base, corpusBase, input)
	opts := func(c *BaseCache) Options {
		return Options{Features: features.Default(), Jobs: 2, BasePath: base, BaseCache: c}
	}
	cacheDir := filepath.Join(dir, "cache")
	file, entry := stampTrusted(t, cacheDir, opts, input)
	pristine, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := preparedRanges(t, pristine)
	le := binary.LittleEndian
	type damage struct {
		what string
		do   func(b []byte)
	}
	var damages []damage
	const places = 50
	for k, region := range []string{"dedup tables", "string index", "type offsets"} {
		from, to := r[k][0], r[k][1]
		for i := range places {
			at := from + i*(to-from-8)/(places-1)
			for j, v := range []uint64{1<<64 - 1, 0, 0x80000000_7ffffff0, uint64(i) * 0x9e3779b97f4a7c15} {
				damages = append(damages, damage{fmt.Sprintf("%s, byte %d = %#x (%d)", region, at, v, j), func(b []byte) { le.PutUint64(b[at:], v) }})
			}
		}
	}
	// Structured damage: the candidate table's slots all in use and its
	// entries' chains going to themselves; the index's slots all in use
	// with offsets past the strings.
	nSlots, nEntries := int(le.Uint64(pristine[112:])), int(le.Uint64(pristine[112+32:]))
	slotsAt := 112 + 40
	damages = append(damages,
		damage{"every table slot in use", func(b []byte) {
			for i := range nSlots {
				le.PutUint32(b[slotsAt+16*i+8:], 0) // head 0
			}
		}},
		damage{"every chain to itself", func(b []byte) {
			for i := range nEntries {
				le.PutUint32(b[slotsAt+16*nSlots+12*i+4:], uint32(i))
			}
		}},
		damage{"every type offset one word on", func(b []byte) {
			for at := r[2][1] - 4; at >= r[2][0]; at -= 4 {
				le.PutUint32(b[at:], le.Uint32(b[at:])+1)
			}
		}},
		damage{"every index slot in use, past the strings", func(b []byte) {
			for at := r[1][0]; at < r[1][1]; at += 8 {
				le.PutUint64(b[at:], le.Uint64(b[at:])|0xfffffff0)
			}
		}},
	)
	if testing.Short() {
		damages = damages[len(damages)-4:]
	}
	trusted := 0
	for _, d := range damages {
		bad := bytes.Clone(pristine)
		d.do(bad)
		// Written in place, then stamped anew: as whoever can write the
		// directory could.
		if err := os.WriteFile(file, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		id, ok := fileIDOf(statOf(t, file))
		if !ok {
			t.Fatal("no identity")
		}
		forged := entry
		forged.cache = id
		forged.recorded = time.Now().Add(time.Minute).UnixNano()
		writeStamp(t, filepath.Join(cacheDir, stampName), stamp{forged})
		c, baseReads := stampedCache(cacheDir, 2*time.Minute)
		type result struct {
			res *Result
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := Encode(input, opts(c))
			done <- result{res, err}
		}()
		select {
		case <-time.After(time.Minute):
			t.Fatalf("%s: the encode did not end within a minute", d.what)
		case got := <-done:
			if got.err == nil {
				if err := got.res.Types.Validate(); err != nil {
					t.Errorf("%s: output not valid: %v", d.what, err)
				}
			}
			if *baseReads == 0 {
				trusted++
			}
		}
		c.Close()
	}
	// Type offsets out of order or bounds are refused even when trusted.
	if want := len(damages) / 3; trusted < want {
		t.Errorf("%d of %d damaged files loaded trusted, want %d at least", trusted, len(damages), want)
	}
	t.Logf("%d damaged files, %d loaded trusted", len(damages), trusted)
}
