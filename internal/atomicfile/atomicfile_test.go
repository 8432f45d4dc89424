package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWriteFileInPieces: data longer than a piece reads back whole, with
// its mode, and no temporary file is left beside it.
func TestWriteFileInPieces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.bin")
	data := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16+3)
	if err := WriteFile(path, data, 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (err %v), want %d", len(got), err, len(data))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d files, want 1", len(entries))
	}
}

// TestWriteFailsLeavesFile: a write that fails halfway leaves the file
// as it was and no temporary file; the error is the writer's, wrapped.
func TestWriteFailsLeavesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.bin")
	if err := WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte{1}, 200<<10)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want the writer's", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("file holds %q, want the old contents", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d files, want 1", len(entries))
	}
}

// TestKeepNewest keeps the newest files with the suffix and leaves the
// others alone.
func TestKeepNewest(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i, name := range []string{"a.x", "b.x", "c.x", "d.x", "e.y"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		// a.x is the newest, d.x the oldest; e.y older still.
		when := now.Add(-time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	KeepNewest(dir, ".x", 2)
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"a.x", "b.x", "e.y"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}
