package encode

import (
	"encoding/binary"
	"fmt"
)

// validateOutput checks the BTF an encode produced against the kernel's
// verifier rules (btf.Types.Validate) before any writer sees it: BTF the
// kernel would refuse is an error naming the input and the type.
func validateOutput(path string, res *Result) error {
	if err := res.Types.Validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
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
