package btfdiff

import "fmt"

// DecodeError says where in a BTF blob decoding failed.
type DecodeError struct {
	Name   string // the input: a file name, with "(.BTF)" for an ELF section
	Offset int64  // byte offset from the start of the BTF blob
	Err    error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: BTF offset %#x: %v", e.Name, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }
