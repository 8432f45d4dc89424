package elffile

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatError reports malformed or unsupported ELF input.
//
// When Section is empty, Offset is a file offset (of the ELF header field,
// section header or symbol at fault). When Section is set, Offset is relative
// to the start of that section's (decompressed) data; for relocation errors
// Section is the section being relocated and Offset the relocation's
// r_offset.
type FormatError struct {
	File    string // path of the ELF file, "" if unknown
	Section string // section name, "" for file-level structures
	Offset  uint64
	Msg     string
	Err     error // underlying cause (e.g. a decompressor error), may be nil
}

// Error formats the error as "FILE: section S at offset 0x..: MSG: ERR",
// leaving out the parts that are empty.
func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Section != "" {
		b.WriteString("section ")
		b.WriteString(e.Section)
		b.WriteString(" at offset 0x")
	} else {
		b.WriteString("offset 0x")
	}
	b.WriteString(strconv.FormatUint(e.Offset, 16))
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// fileErr builds a FormatError about a file-level structure at file offset off.
func (f *File) fileErr(off uint64, format string, args ...any) *FormatError {
	return &FormatError{File: f.Path, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// sectionErr builds a FormatError about the contents of section s at
// section-relative offset off.
func (f *File) sectionErr(s *Section, off uint64, cause error, format string, args ...any) *FormatError {
	return &FormatError{File: f.Path, Section: s.displayName(), Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// displayName is the section's name, or "#N" for an unnamed section.
func (s *Section) displayName() string {
	if s.Name != "" {
		return s.Name
	}
	return "#" + strconv.Itoa(s.Index)
}
