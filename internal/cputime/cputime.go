// Package cputime reads the CPU time the process has used, for benchmarks
// that report it next to wall time (wall time is noisy on a shared
// machine; CPU time much less).
package cputime
