//go:build !unix

package cputime

import "time"

// Process returns 0: CPU time is not measured on this system.
func Process() time.Duration { return 0 }
