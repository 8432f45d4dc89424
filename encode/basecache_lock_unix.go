//go:build unix

package encode

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// preparingLock is the lock file lockPreparing takes in a cache's
// directory; it stays there, empty (a lock file removed while held
// would let a second holder in).
const preparingLock = "prepare.lock"

// preparingWait is how long lockPreparing waits for the lock: preparing
// a kernel's base takes a fraction of a second.
const preparingWait = 20 * time.Second

// lockPreparing takes the cache directory's lock on preparing a base (an
// flock on preparingLock), so that of the encodes a parallel build starts
// on a new base at once, one prepares and stores it while the others wait
// and then map it. It returns the release and whether another process
// held the lock first (the caller then looks for the file again). The
// lock is not taken (a release that does nothing) when the directory or
// the lock file cannot be made; and it is given up after preparingWait,
// as if a holder had hung, for an encode to prepare the base itself. The
// kernel drops the lock of a process that dies.
func (c *BaseCache) lockPreparing() (release func(), waited bool) {
	none := func() {}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return none, false
	}
	// Read-only: flock needs no write access, so the lock holds between
	// users sharing a cache directory whatever the file's owner.
	fh, err := os.OpenFile(filepath.Join(c.dir, preparingLock), os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return none, false
	}
	fd := int(fh.Fd())
	release = func() {
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		fh.Close()
	}
	deadline := time.Now().Add(preparingWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 20*time.Millisecond) {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return release, waited
		case err == syscall.EINTR:
		case err != syscall.EWOULDBLOCK || time.Now().After(deadline):
			fh.Close()
			return none, waited
		}
		waited = true
		time.Sleep(pause)
	}
}
