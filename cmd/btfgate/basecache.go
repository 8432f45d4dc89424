package main

import (
	"os"
	"path/filepath"

	"github.com/btfgate/btfgate/encode"
)

// baseCacheEnv names the directory of prepared bases (encode.BaseCache)
// when --base-cache does not; "off" turns the cache off.
const baseCacheEnv = "BTFGATE_BASE_CACHE"

// baseCache returns the cache of prepared bases that flag (--base-cache),
// else $BTFGATE_BASE_CACHE, else the user's cache directory names, or nil
// when it is "off" or there is no cache directory.
func baseCache(flag string) *encode.BaseCache {
	dir := flag
	if dir == "" {
		dir = os.Getenv(baseCacheEnv)
	}
	if dir == "" {
		user, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(user, "btfgate", "base")
	}
	if dir == "off" {
		return nil
	}
	return encode.NewBaseCache(dir)
}
