package encode

import (
	"encoding/binary"
	"fmt"
)

// validateOutput checks the BTF an encode produced against the kernel's
// verifier rules (btf.Types.Validate) before any writer sees it: BTF the
// kernel would refuse is an error naming the input and the type. pahole's
// own breaches that reproducing its output requires are one warning.
func validateOutput(path string, res *Result) error {
	warnings, err := res.Types.Validate()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(warnings) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d DATASEC entries overlap the entry before them, as pahole 1.31 writes them; a kernel refuses such BTF (first: %s)", len(warnings), warnings[0]))
	}
	return nil
}

// endianness names a byte order as errors say it.
func endianness(o binary.ByteOrder) string {
	if o == binary.ByteOrder(binary.BigEndian) {
		return "big-endian"
	}
	return "little-endian"
}
