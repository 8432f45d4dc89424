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
	if len(d.parts) > 1 {
		n, base := 0, uint64(0)
		switch section {
		case ".debug_info":
			n = d.partAt(off)
			base = d.parts[n].infoOff
		case ".debug_abbrev":
			n = d.partAtAbbrev(off)
			base = d.parts[n].abbrevOff
		}
		if n > 0 {
			p := d.parts[n]
			return &DecodeError{File: p.file, Section: section, Offset: off - base, Unit: unit,
				Err: fmt.Errorf("%w (%s of %s)", err, p.kind, d.file)}
		}
	}
	return &DecodeError{File: d.file, Section: section, Offset: off, Unit: unit, Err: err}
}
