// Package outputs owns every file a btfgate command writes.
//
// A command makes one Set with its inputs, declares each output with Add
// before it reads anything, stages the outputs' contents (Write, Create)
// while it runs, and commits them all together at the end (Commit). The
// contract:
//
//   - An output that is the same file as an input or as another output is
//     refused when it is declared: by device and inode, so a symlink, a hard
//     link or another spelling of the path is caught too. An output whose
//     directory does not exist is refused then as well, before any work.
//   - Outputs are staged in temporary files beside their destination, so a
//     reader never sees a half-written file and a failed command changes no
//     destination. Commit renames them in declaration order; Abort removes
//     what was staged. CatchSignals makes SIGINT, SIGTERM and SIGHUP abort.
//   - Outputs are not synced to disk: as with ld, objcopy and pahole, what
//     a build writes is made durable by the filesystem's own writeback, and
//     a crash means building again. An fsync per output is a journal
//     commit the process waits for, about 0.7 ms per module of a kernel
//     build (docs/performance.md, "Session 18: outputs without fsync").
//   - Replacing an input in place (pahole's -J) goes through ReplaceInPlace,
//     which treats the file as pahole's open(O_RDWR) does: a symlink's target
//     is written, a file that cannot be opened for writing is an error, and a
//     file with more than one hard link is rewritten through its own inode
//     so that every link sees the new contents.
package outputs

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// Set is the outputs of one command run. Its methods are safe for
// concurrent use (the signal handler aborts from its own goroutine).
type Set struct {
	mu      sync.Mutex
	inputs  []named
	outputs []*output
	done    bool
}

type named struct {
	path string
	info os.FileInfo
}

type output struct {
	path    string
	info    os.FileInfo // nil when the destination does not exist yet
	tmp     *os.File    // staged contents; nil until staged
	perm    os.FileMode
	inPlace bool   // an input replaced in place (AddInPlace)
	target  string // inPlace: path with symlinks resolved
}

// New returns a Set for a command that reads inputs. Inputs that do not
// exist are left for the command to report; only existing files take part
// in the same-file check.
func New(inputs ...string) *Set {
	s := &Set{}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if fi, err := os.Stat(in); err == nil {
			s.inputs = append(s.inputs, named{in, fi})
		}
	}
	return s
}

// Add declares an output. It is an error when path is an input, an output
// already declared, a directory, or in a directory that does not exist.
func (s *Set) Add(flag, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	where := path
	if flag != "" {
		where = flag + " " + path
	}
	if dir := filepath.Dir(path); dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s: directory %s does not exist", where, dir)
		}
	}
	fi, err := os.Stat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s: is a directory", where)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file (%s)", where, fi.Mode().Type())
		}
		for _, in := range s.inputs {
			if os.SameFile(in.info, fi) {
				return fmt.Errorf("%s: is the input %s: refusing to overwrite an input", where, in.path)
			}
		}
		for _, o := range s.outputs {
			if o.info != nil && os.SameFile(o.info, fi) {
				return fmt.Errorf("%s: is also the output %s", where, o.path)
			}
		}
	} else {
		fi = nil
		for _, o := range s.outputs {
			if filepath.Clean(o.path) == filepath.Clean(path) {
				return fmt.Errorf("%s: is also the output %s", where, o.path)
			}
		}
	}
	s.outputs = append(s.outputs, &output{path: path, info: fi, perm: 0o644})
	return nil
}

// AddInputs declares inputs found while reading the others (the
// supplementary file or split DWARF objects an input's DWARF names). An
// output already declared that is one of them is an error, as is any
// output declared after.
func (s *Set) AddInputs(paths ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, in := range paths {
		fi, err := os.Stat(in)
		if in == "" || err != nil {
			continue
		}
		for _, o := range s.outputs {
			if o.info != nil && os.SameFile(o.info, fi) {
				return fmt.Errorf("%s: is the input %s (read with the others): refusing to overwrite an input", o.path, in)
			}
		}
		s.inputs = append(s.inputs, named{in, fi})
	}
	return nil
}

// Write stages data as the contents of the declared output path.
func (s *Set) Write(path string, data []byte, perm os.FileMode) error {
	f, err := s.Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Create stages the declared output path and returns the staged file to
// write to; the Set closes it. A second Create of the same path restarts it.
func (s *Set) Create(path string, perm os.FileMode) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil, fmt.Errorf("write %s: the outputs were already committed or aborted", path)
	}
	o := s.find(path)
	if o == nil {
		return nil, fmt.Errorf("write %s: not a declared output", path)
	}
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
	dest := path
	if o.inPlace {
		dest, perm = o.target, o.info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	o.tmp, o.perm = tmp, perm
	return tmp, nil
}

func (s *Set) find(path string) *output {
	for _, o := range s.outputs {
		if o.path == path {
			return o
		}
	}
	return nil
}

// Commit moves every staged output to its destination, in the order they
// were declared; outputs declared but never staged are left alone. After
// the first failure the outputs not yet moved are removed.
func (s *Set) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	s.done = true
	var first error
	for _, o := range s.outputs {
		if o.tmp == nil {
			continue
		}
		name := o.tmp.Name()
		if first == nil {
			first = commitOne(o)
		}
		if first != nil {
			o.tmp.Close()
			os.Remove(name)
		}
		o.tmp = nil
	}
	return first
}

func commitOne(o *output) error {
	if o.inPlace {
		return commitInPlace(o)
	}
	return o.renameStaged(o.perm, o.path)
}

// renameStaged gives the staged file mode perm, closes it, and renames it
// to dest.
func (o *output) renameStaged(perm os.FileMode, dest string) error {
	if err := o.tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := o.tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := os.Rename(o.tmp.Name(), dest); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	return nil
}

// Abort removes every staged output; no destination changes. It is safe to
// call after Commit (it does nothing then) and more than once.
func (s *Set) Abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	for _, o := range s.outputs {
		if o.tmp != nil {
			o.tmp.Close()
			os.Remove(o.tmp.Name())
			o.tmp = nil
		}
	}
}

// CatchSignals aborts the Set and exits with 128+signal when the process
// gets SIGINT, SIGTERM or SIGHUP, until the returned function is called.
func (s *Set) CatchSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	quit := make(chan struct{})
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-ch:
			s.Abort()
			n := 1
			if ss, ok := sig.(syscall.Signal); ok {
				n = 128 + int(ss)
			}
			os.Exit(n)
		case <-quit:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(quit)
	}
}
