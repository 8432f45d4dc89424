package main

import (
	"os"
	"path/filepath"
)

// policyCacheEnv names the directory where the default policies are kept
// compiled for the next encodes (engine.Config.CacheDir); "off" turns the
// cache off.
const policyCacheEnv = "BTFGATE_POLICY_CACHE"

// policyCacheDir returns $BTFGATE_POLICY_CACHE, else the user's cache
// directory's btfgate/policy; "" when it is "off" or there is no cache
// directory.
func policyCacheDir() string {
	dir := os.Getenv(policyCacheEnv)
	if dir == "" {
		user, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(user, "btfgate", "policy")
	}
	if dir == "off" {
		return ""
	}
	return dir
}
