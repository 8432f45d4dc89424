package elffile

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
)

// Limits on the claimed decompressed size of a section. A compressed
// section's header states its uncompressed size (ch_size) and the buffer is
// allocated from it, so it is bounded before use: debug sections compress
// by 3x to 10x, so a claim beyond maxCompressionRatio times the compressed
// size (plus a little slack for tiny sections) can only be hostile or
// corrupt, and maxDecompressedSize caps the absolute size.
const (
	maxDecompressedSize = 4 << 30
	maxCompressionRatio = 1000
	compressionSlack    = 1 << 20
)

// decompressSection decodes an SHF_COMPRESSED section whose raw bytes start
// with an Elf32_Chdr or Elf64_Chdr.
func (f *File) decompressSection(s *Section, raw []byte) ([]byte, error) {
	o := f.order
	var typ uint32
	var size, align uint64
	var hdr int
	if f.Class == Class64 {
		hdr = chdr64Size
		if len(raw) < hdr {
			return nil, f.sectionErr(s, 0, nil, "compressed section is %d bytes, too small for an Elf64_Chdr", len(raw))
		}
		typ, size, align = o.u32(raw), o.u64(raw[8:]), o.u64(raw[16:])
	} else {
		hdr = chdr32Size
		if len(raw) < hdr {
			return nil, f.sectionErr(s, 0, nil, "compressed section is %d bytes, too small for an Elf32_Chdr", len(raw))
		}
		typ, size, align = o.u32(raw), uint64(o.u32(raw[4:])), uint64(o.u32(raw[8:]))
	}
	if align&(align-1) != 0 {
		return nil, f.sectionErr(s, 0, nil, "compression header ch_addralign %d is not a power of two", align)
	}
	payload := raw[hdr:]
	if err := checkClaimedSize(size, uint64(len(payload))); err != nil {
		return nil, f.sectionErr(s, 0, nil, "compression header ch_size %d: %s", size, err)
	}
	var out []byte
	var err error
	switch typ {
	case ELFCOMPRESS_ZLIB:
		out, err = inflate(payload, size)
	case ELFCOMPRESS_ZSTD:
		out, err = unzstd(payload, size)
	default:
		return nil, f.sectionErr(s, 0, nil, "unknown compression type ch_type %d", typ)
	}
	if err != nil {
		return nil, f.sectionErr(s, uint64(hdr), err, "decompressing %d bytes (ch_type %d) to ch_size %d", len(payload), typ, size)
	}
	return out, nil
}

// decompressZdebug decodes a legacy .zdebug_* section: "ZLIB", a 64-bit
// big-endian uncompressed size, then a zlib stream.
func (f *File) decompressZdebug(s *Section, raw []byte) ([]byte, error) {
	const hdr = 12
	if len(raw) < hdr || string(raw[:4]) != zdebugMagic {
		return nil, f.sectionErr(s, 0, nil, "legacy compressed section does not start with %q and a size", zdebugMagic)
	}
	size := uint64(raw[4])<<56 | uint64(raw[5])<<48 | uint64(raw[6])<<40 | uint64(raw[7])<<32 |
		uint64(raw[8])<<24 | uint64(raw[9])<<16 | uint64(raw[10])<<8 | uint64(raw[11])
	payload := raw[hdr:]
	if err := checkClaimedSize(size, uint64(len(payload))); err != nil {
		return nil, f.sectionErr(s, 4, nil, "uncompressed size %d: %s", size, err)
	}
	out, err := inflate(payload, size)
	if err != nil {
		return nil, f.sectionErr(s, hdr, err, "decompressing %d bytes (zlib) to %d", len(payload), size)
	}
	return out, nil
}

// checkClaimedSize bounds a decompressed size read from the file before a
// buffer of that size is allocated.
func checkClaimedSize(size, compressed uint64) error {
	switch {
	case size > maxDecompressedSize || size > math.MaxInt:
		return errors.New("larger than the 4 GiB limit on a decompressed section")
	case size > maxCompressionRatio*compressed+compressionSlack:
		return errors.New("more than 1000 times the compressed size, not plausible for a debug section")
	}
	return nil
}

// errSizeMismatch reports a stream whose length disagrees with its header.
var errSizeMismatch = errors.New("decompressed length differs from the size in the header")

// inflate decodes the zlib stream src, which must decode to exactly size
// bytes and end there (checksum included).
func inflate(src []byte, size uint64) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make([]byte, size)
	if _, err := io.ReadFull(r, out); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, errSizeMismatch
		}
		return nil, err
	}
	var extra [1]byte
	n, err := r.Read(extra[:])
	if n > 0 {
		return nil, errSizeMismatch
	}
	if err != io.EOF {
		if err == nil {
			err = errSizeMismatch
		}
		return nil, err
	}
	return out, nil
}

// unzstd decodes the zstd frames in src into exactly size bytes. Output is
// capped at size, so a stream that decodes to more fails rather than grows.
func unzstd(src []byte, size uint64) ([]byte, error) {
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(max(size, 8<<20)),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out, err := dec.DecodeAll(src, make([]byte, 0, size))
	if err != nil {
		return nil, err
	}
	if uint64(len(out)) != size {
		return nil, errSizeMismatch
	}
	return out, nil
}
