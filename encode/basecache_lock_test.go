//go:build unix

package encode

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
)

// TestBaseCachePrepareLock: an encode that finds no prepared base waits
// while another process prepares one (holds the directory's lock), then
// maps what that one stored instead of preparing the base itself; if
// nothing was stored meanwhile it prepares the base. Both give the bytes
// of the encode without a cache.
func TestBaseCachePrepareLock(t *testing.T) {
	dir := t.TempDir()
	baseFile, input := splitFixture(t, dir)
	opts := Options{Features: features.Default(), Jobs: 2, BasePath: baseFile}
	_, want := encodeBytes(t, input, opts, binary.LittleEndian)
	raw, err := os.ReadFile(baseFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, storeMeanwhile := range []bool{true, false} {
		cacheDir := filepath.Join(dir, "cache", map[bool]string{true: "stored", false: "not-stored"}[storeMeanwhile])
		holder := NewBaseCache(cacheDir)
		release, waited := holder.lockPreparing()
		if waited {
			t.Fatal("a fresh directory's lock was held")
		}
		type result struct {
			res *Result
			got []byte
			err error
		}
		done := make(chan result, 1)
		c := NewBaseCache(cacheDir)
		go func() {
			o := opts
			o.BaseCache = c
			res, err := Encode(input, o)
			var got []byte
			if err == nil {
				got, err = res.Types.Marshal(binary.LittleEndian)
			}
			done <- result{res, got, err}
		}()
		select {
		case r := <-done:
			t.Fatalf("stored %v: the encode ended (err %v) while another held the lock", storeMeanwhile, r.err)
		case <-time.After(300 * time.Millisecond):
		}
		if storeMeanwhile {
			parsed, err := btf.ParseBase(raw)
			if err != nil {
				t.Fatal(err)
			}
			prepared, err := btf.Prepare(parsed, raw)
			if err != nil {
				t.Fatal(err)
			}
			name, err := fileName(bytes.NewReader(raw), int64(len(raw)))
			if err != nil {
				t.Fatal(err)
			}
			if err := holder.store(name, func(w io.Writer) error {
				_, err := prepared.WriteTo(w)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		release()
		r := <-done
		if r.err != nil {
			t.Fatalf("stored %v: %v", storeMeanwhile, r.err)
		}
		if !bytes.Equal(r.got, want) {
			t.Errorf("stored %v: %d bytes, without the cache %d, not the same", storeMeanwhile, len(r.got), len(want))
		}
		if r.res.BaseCached != storeMeanwhile {
			t.Errorf("stored %v: BaseCached %v, want %v", storeMeanwhile, r.res.BaseCached, storeMeanwhile)
		}
		if files, _ := filepath.Glob(filepath.Join(cacheDir, "*.btfbase")); len(files) != 1 {
			t.Errorf("stored %v: cache holds %v, want one prepared base", storeMeanwhile, files)
		}
		c.Close()
		holder.Close()
	}
}
