// Package inputs opens every file btfgate reads. The contract:
//
//   - Only regular files (after symlinks) are opened: a FIFO, a device, a
//     socket or a directory named as an input is an error naming it, found
//     with stat before open, so nothing blocks in open(2) on a FIFO or reads
//     without end from a device. The file is opened non-blocking and checked
//     again with fstat, so one swapped for a FIFO in between is refused too.
//   - ReadFile reads at most a cap that the caller names for its kind of
//     input (rules, policy, data); a larger file is an error naming the cap.
package inputs

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// The caps of the text inputs; ELF and BTF inputs are mapped, not read
// whole, and have none.
const (
	RulesCap  = 16 << 20  // a rules file
	PolicyCap = 16 << 20  // one Rego module
	DataCap   = 256 << 20 // a data file of lists
)

// Open opens path for reading if it is a regular file.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err // an *fs.PathError, which names path
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st2, err := f.Stat()
	if err == nil {
		err = regular(path, st2)
	}
	if err == nil && !os.SameFile(st, st2) {
		err = fmt.Errorf("%s: replaced while it was being opened", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func regular(path string, st os.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch t := st.Mode().Type(); {
	case t&os.ModeDir != 0:
		what = "a directory"
	case t&os.ModeNamedPipe != 0:
		what = "a FIFO"
	case t&os.ModeDevice != 0:
		what = "a device"
	case t&os.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("%s: is %s, not a regular file", path, what)
}

// ReadFile reads the regular file at path whole, refusing one larger than
// limit bytes; what names the kind of input in that error ("rules file").
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than a %s may hold (%d)", path, st.Size(), what, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than a %s may hold (%d bytes)", path, what, limit)
	}
	return data, nil
}
