//go:build linux

package encode

import (
	"os"
	"syscall"
)

// fileIDOf returns the identity of the file st describes; false if the
// platform does not say it.
func fileIDOf(st os.FileInfo) (fileID, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.Mode().IsRegular() {
		return fileID{}, false
	}
	return fileID{dev: s.Dev, ino: s.Ino, size: s.Size,
		mtime: s.Mtim.Nano(), ctime: s.Ctim.Nano()}, true
}

// ownedPrivately reports whether the file st describes was written by
// this user alone: it owns it, and neither group nor others may write it.
func ownedPrivately(st os.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Geteuid() && st.Mode().Perm()&0o022 == 0
}
