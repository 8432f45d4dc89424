// Command modsetrun runs one encoder process per module, P at a time, as
// make -jP runs one pahole per module, and records each process's wall
// time, CPU time and peak RSS. It is scripts/bench.sh's module-set driver:
// it replaces a shell, /usr/bin/time and date per module, whose own 10–15 ms
// per module were as much as a small module's encode and were counted in
// the set's wall time of both tools.
//
//	modsetrun -P 2 -res DIR -out DIR -- COMMAND ARGS... < LIST
//
// LIST has one "IDX PATH" line per module. In the command's arguments
// {in} stands for PATH and {out} for OUTDIR/IDX.btf (removed before the
// run). Per module it writes DIR/IDX: "exit wall_s cpu_s peak_rss_kib"
// (exit -1 for a process that exits 0 and writes no output; -2 for one
// killed by a signal; CPU is user+system time, RSS the kernel's maxrss),
// and the process's stderr to DIR/IDX.err when it wrote any. The wall time
// is from the fork to the wait's return. The processes get MAKEFLAGS as
// make -jP gives it to the commands it runs (" -jP", without the
// jobserver's descriptors, which make 4.3 passes only to a sub-make). It
// exits 0 when every module ran, whatever the encodes gave; 2 on a bad
// argument or LIST line, or when a process could not be started.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// module is one line of the list.
type module struct{ idx, path string }

// runner holds what every module's run shares.
type runner struct {
	resDir, outDir string
	command        []string
	env            []string // the processes' environment
}

func main() {
	if err := run(os.Args[1:], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "modsetrun:", err)
		os.Exit(2)
	}
}

func run(args []string, list io.Reader) error {
	fs := flag.NewFlagSet("modsetrun", flag.ContinueOnError)
	parallel := fs.Int("P", 2, "processes at a time")
	resDir := fs.String("res", "", "directory of the per-module results")
	outDir := fs.String("out", "", "directory of the outputs ({out} is OUT/IDX.btf)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *parallel < 1 || *resDir == "" || *outDir == "" || fs.NArg() == 0 {
		return errors.New("want -P N (N >= 1) -res DIR -out DIR -- COMMAND [ARG]")
	}
	mods, err := readList(list)
	if err != nil {
		return err
	}
	r := &runner{resDir: *resDir, outDir: *outDir, command: fs.Args(),
		env: append(os.Environ(), fmt.Sprintf("MAKEFLAGS= -j%d", *parallel))}
	jobs := make(chan module)
	errs := make(chan error, len(mods))
	var wg sync.WaitGroup
	for range *parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range jobs {
				if err := r.one(m); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, m := range mods {
		jobs <- m
	}
	close(jobs)
	wg.Wait()
	close(errs)
	return <-errs // nil when none
}

// readList reads the "IDX PATH" lines.
func readList(list io.Reader) ([]module, error) {
	var mods []module
	sc := bufio.NewScanner(list)
	for n := 1; sc.Scan(); n++ {
		idx, path, ok := strings.Cut(sc.Text(), " ")
		if !ok || idx == "" || path == "" || strings.ContainsAny(idx, "/.") {
			return nil, fmt.Errorf("list line %d: want IDX PATH, got %q", n, sc.Text())
		}
		mods = append(mods, module{idx, path})
	}
	return mods, sc.Err()
}

// one runs the command on m and writes its result line.
func (r *runner) one(m module) error {
	out := filepath.Join(r.outDir, m.idx+".btf")
	if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	argv := make([]string, len(r.command))
	for i, a := range r.command {
		argv[i] = strings.NewReplacer("{in}", m.path, "{out}", out).Replace(a)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = &stderr
	cmd.Env = r.env
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return fmt.Errorf("%s: %w", m.path, err)
	}
	st := cmd.ProcessState
	code := st.ExitCode() // -1 when a signal ended it
	switch {
	case code == -1:
		code = -2
	case code == 0:
		if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
			code = -1 // pahole reports some errors and exits 0, writing nothing
		}
	}
	var rss int64
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss // KiB on Linux
	}
	cpu := st.UserTime() + st.SystemTime()
	res := filepath.Join(r.resDir, m.idx)
	line := fmt.Sprintf("%d %.4f %.3f %d\n", code, wall.Seconds(), cpu.Seconds(), rss)
	if err := os.WriteFile(res, []byte(line), 0o644); err != nil {
		return err
	}
	if stderr.Len() > 0 {
		return os.WriteFile(res+".err", stderr.Bytes(), 0o644)
	}
	return nil
}
