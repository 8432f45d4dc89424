package encode

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
)

var (
	fuzzEngineOnce sync.Once
	fuzzEngine     *engine.Engine
	fuzzEngineErr  error
)

// FuzzEncode runs the whole encode (read, walk, convert, splice, policies,
// functions, dedup, marshal) on mutated objects. Encode must succeed or
// return an error naming the file; a panic or a hang is a bug. Seeds: the
// fixtures.
func FuzzEncode(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/fixtures/*.o")
	so, _ := filepath.Glob("../testdata/fixtures/*.so")
	for _, p := range append(paths, so...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	fuzzEngineOnce.Do(func() {
		fuzzEngine, fuzzEngineErr = engine.New(context.Background(), engine.Config{Features: features.Default()})
	})
	if fuzzEngineErr != nil {
		f.Fatal(fuzzEngineErr)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		tmp, err := os.CreateTemp(dir, "fuzz-*.o")
		if err != nil {
			t.Fatal(err)
		}
		path := tmp.Name()
		defer os.Remove(path)
		if _, err := tmp.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := tmp.Close(); err != nil {
			t.Fatal(err)
		}
		res, err := Encode(path, Options{Features: features.Default(), Jobs: 1, Policy: fuzzEngine})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// The CLI reports a marshal error like an encode error.
		_, _ = res.Types.Marshal(binary.LittleEndian)
	})
}
