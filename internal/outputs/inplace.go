package outputs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// AddInPlace declares that the input path is rewritten in place, as
// pahole's -J rewrites the object it encodes. It is an error when path is
// not a regular file or cannot be opened for writing (pahole's
// open(O_RDWR) fails the same way), checked now, before any work.
func (s *Set) AddInPlace(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.OpenFile(target, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%s: cannot be rewritten in place: %w", path, err)
	}
	f.Close()
	for _, o := range s.outputs {
		if o.info != nil && os.SameFile(o.info, fi) {
			return fmt.Errorf("%s: is also the output %s", path, o.path)
		}
	}
	s.outputs = append(s.outputs, &output{path: path, info: fi, inPlace: true, target: target})
	return nil
}

// commitInPlace moves the staged contents over the target of o. A file
// with one link is replaced by a rename (never half-written), keeping its
// mode and, where the process may, its owner. A file with more links is
// rewritten through its own inode, so that every link keeps seeing it.
func commitInPlace(o *output) error {
	st, ok := o.info.Sys().(*syscall.Stat_t)
	if ok && st.Nlink > 1 {
		return rewriteInode(o)
	}
	if ok {
		// Best effort, as cp -p: only root may give a file away.
		_ = o.tmp.Chown(int(st.Uid), int(st.Gid))
	}
	return o.renameStaged(o.info.Mode().Perm(), o.target)
}

// rewriteInode copies the staged contents into the target file itself and
// removes the staged file.
func rewriteInode(o *output) error {
	defer func() {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}()
	f, err := os.OpenFile(o.target, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	defer f.Close()
	if _, err := o.tmp.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	n, err := io.Copy(f, o.tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := f.Truncate(n); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	return f.Close()
}
