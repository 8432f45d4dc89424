package elffile

import (
	"fmt"
	"runtime/debug"
)

// FaultError is a read of mapped input that the system could not serve:
// the file was truncated (or its storage failed) while it was mapped.
type FaultError struct {
	Path string
	Addr uintptr
}

func (e *FaultError) Error() string {
	return fmt.Sprintf("%s: the file changed while it was read (truncated?): no data at address %#x of its mapping", e.Path, e.Addr)
}

// GuardFaults makes a fault on mapped memory in the calling goroutine a
// panic instead of the end of the process, and returns the function to
// defer that turns such a panic into a *FaultError in *err (other panics
// go on). Use it at the top of every goroutine that reads a File's data:
//
//	defer elffile.GuardFaults(path, &err)()
func GuardFaults(path string, err *error) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		r := recover()
		if r == nil {
			return
		}
		if f, ok := r.(interface{ Addr() uintptr }); ok {
			*err = &FaultError{Path: path, Addr: f.Addr()}
			return
		}
		panic(r)
	}
}
