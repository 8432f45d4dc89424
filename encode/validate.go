package encode

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/btfgate/btfgate/btf"
)

// validateOutput checks the BTF an encode produced against the kernel's
// verifier rules (btf.Types.Validate) before any writer sees it: BTF the
// kernel would refuse is an error naming the input and the type.
// BTF without types names where it looked: the units of .debug_info.
func validateOutput(path string, res *Result) error {
	if err := res.Types.Validate(); err != nil {
		var ve *btf.ValidationError
		if errors.As(err, &ve) && ve.Type == 0 {
			return fmt.Errorf("%s: .debug_info, %d compile unit(s): %w", path, res.Units, err)
		}
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
