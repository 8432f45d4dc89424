//go:build !linux

package encode

import "os"

// fileIDOf returns false: identities are read on Linux only, elsewhere
// every load checks its base whole.
func fileIDOf(os.FileInfo) (fileID, bool) { return fileID{}, false }

// ownedPrivately returns false: stamps are not used off Linux.
func ownedPrivately(os.FileInfo) bool { return false }
