// Package atomicfile writes the files of btfgate's caches (prepared bases,
// compiled policies) so that a reader never sees a half-written file: data
// goes to a temporary file in the same directory, is synced, and is renamed
// over the destination; on failure the destination is left as it was. It
// also keeps a cache directory to its newest files.
package atomicfile

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// WriteFile atomically replaces path with data, with permissions perm
// (Write).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with what write writes, with permissions
// perm; if write fails, path is left as it was. What is written goes to
// the file 64 KiB at a time: the page cache then holds the file in small
// folios, so a process that maps it and reads a few bytes maps a few
// pages, where one large write leaves folios of up to 2 MiB, each mapped
// whole on its first read.
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(smallWrites{tmp}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// smallWrites writes to w at most 64 KiB at a time.
type smallWrites struct{ w io.Writer }

func (s smallWrites) Write(b []byte) (int, error) {
	done := 0
	for len(b) > 0 {
		n, err := s.w.Write(b[:min(len(b), 64<<10)])
		done += n
		if err != nil {
			return done, err
		}
		b = b[n:]
	}
	return done, nil
}

// KeepNewest removes all but the keep most recently modified files of dir
// whose names end in suffix. Errors are ignored: a file another process
// removed first, or one that cannot be removed, stays as it is.
func KeepNewest(dir, suffix string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  int64
	}
	var files []file
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(b.mod, a.mod) })
	for _, f := range files[min(keep, len(files)):] {
		os.Remove(filepath.Join(dir, f.name))
	}
}
