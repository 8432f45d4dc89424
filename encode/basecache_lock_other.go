//go:build !unix

package encode

// lockPreparing takes no lock off Unix: encodes that find no prepared
// base each prepare and store it (the last rename wins).
func (c *BaseCache) lockPreparing() (release func(), waited bool) {
	return func() {}, false
}
