package btfdiff

// DecodeError says which BTF blob could not be read and where: Err is btf's
// *ParseError, which names the byte offset and, past the header, the type id.
type DecodeError struct {
	Name   string // the input: a file name, with "(.BTF.base)" for a distilled base
	Offset int64  // byte offset from the start of the BTF blob
	Err    error
}

func (e *DecodeError) Error() string { return e.Name + ": " + e.Err.Error() }

func (e *DecodeError) Unwrap() error { return e.Err }
