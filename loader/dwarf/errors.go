package dwarf

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrTruncated is wrapped by a DecodeError when data ends before a value
// that it announces.
var ErrTruncated = errors.New("data truncated")

// DecodeError reports malformed DWARF data.
type DecodeError struct {
	File    string // Sections.File
	Section string // section where the problem is, e.g. ".debug_info"
	Offset  uint64 // offset in Section
	Unit    int    // index of the unit being decoded, -1 if none
	Err     error  // what is wrong
}

func (e *DecodeError) Error() string {
	s := "dwarf: "
	if e.File != "" {
		s += e.File + ": "
	}
	s += e.Section + "+0x" + strconv.FormatUint(e.Offset, 16)
	if e.Unit >= 0 {
		s += " (unit " + strconv.Itoa(e.Unit) + ")"
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// errorf builds a DecodeError for data d.
// An offset in the supplement's part of .debug_info or .debug_abbrev is
// reported as the supplementary file's.
func (d *Data) decodeError(section string, off uint64, unit int, err error) *DecodeError {
	if s := d.sup; s != nil {
		switch {
		case section == ".debug_info" && off >= s.infoOff:
			return &DecodeError{File: s.file, Section: section, Offset: off - s.infoOff, Unit: unit,
				Err: fmt.Errorf("%w (supplementary file of %s)", err, d.file)}
		case section == ".debug_abbrev" && off >= s.abbrevOff:
			return &DecodeError{File: s.file, Section: section, Offset: off - s.abbrevOff, Unit: unit,
				Err: fmt.Errorf("%w (supplementary file of %s)", err, d.file)}
		}
	}
	return &DecodeError{File: d.file, Section: section, Offset: off, Unit: unit, Err: err}
}
