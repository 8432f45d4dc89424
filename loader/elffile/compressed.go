package elffile

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
)

// Limits bound the memory that decompressing sections may take. A
// compressed section's header states its uncompressed size and the buffer
// is allocated from it, so the claim is checked before anything is
// decompressed.
type Limits struct {
	// MaxInflation is how many times the file's size the compressed
	// sections one call decompresses (DebugSections, SectionData) may
	// claim, added up, plus inflationSlack for small files. Debug sections
	// compress by a few times, and a file holds more than its compressed
	// debug sections, so honest files claim about the file's size.
	MaxInflation uint64
}

// DefaultMaxInflation is Limits.MaxInflation unless the caller raises it.
const DefaultMaxInflation = 32

// DefaultLimits are the limits Open and NewFile apply.
func DefaultLimits() Limits { return Limits{MaxInflation: DefaultMaxInflation} }

// Hard bounds on one section's claimed size, whatever the Limits: no
// section decompresses past maxDecompressedSize, and none claims more than
// maxCompressionRatio times its payload (plus compressionSlack for tiny
// sections), which no honest encoder produces.
const (
	maxDecompressedSize = 4 << 30
	maxCompressionRatio = 1000
	compressionSlack    = 1 << 20
	inflationSlack      = 1 << 20
)

// compressed is how a section's bytes are compressed, as its header says.
type compressed struct {
	typ     uint32 // ELFCOMPRESS_*; ELFCOMPRESS_ZLIB for .zdebug
	size    uint64 // the claimed uncompressed size
	hdr     int    // the header's size: where payload starts in the section
	payload []byte
}

// compression reads the header of raw, the bytes of s: an Elf32_Chdr or
// Elf64_Chdr for an SHF_COMPRESSED section, "ZLIB" and a 64-bit big-endian
// size for a legacy .zdebug one. It checks the claimed size against the
// hard bounds; ok is false if raw is not compressed.
func (f *File) compression(s *Section, raw []byte, zdebug bool) (c compressed, ok bool, err error) {
	switch {
	case zdebug:
		const hdr = 12
		if len(raw) < hdr || string(raw[:4]) != zdebugMagic {
			return c, false, f.sectionErr(s, 0, nil, "legacy compressed section does not start with %q and a size", zdebugMagic)
		}
		c = compressed{typ: ELFCOMPRESS_ZLIB, size: uint64(raw[4])<<56 | uint64(raw[5])<<48 | uint64(raw[6])<<40 | uint64(raw[7])<<32 |
			uint64(raw[8])<<24 | uint64(raw[9])<<16 | uint64(raw[10])<<8 | uint64(raw[11]), hdr: hdr, payload: raw[hdr:]}
		if err := checkClaimedSize(c.size, uint64(len(c.payload))); err != nil {
			return c, false, f.sectionErr(s, 4, nil, "uncompressed size %d: %s", c.size, err)
		}
		return c, true, nil
	case s.Flags&SHF_COMPRESSED == 0:
		return c, false, nil
	}
	o := f.order
	var align uint64
	if f.Class == Class64 {
		c.hdr = chdr64Size
		if len(raw) < c.hdr {
			return c, false, f.sectionErr(s, 0, nil, "compressed section is %d bytes, too small for an Elf64_Chdr", len(raw))
		}
		c.typ, c.size, align = o.u32(raw), o.u64(raw[8:]), o.u64(raw[16:])
	} else {
		c.hdr = chdr32Size
		if len(raw) < c.hdr {
			return c, false, f.sectionErr(s, 0, nil, "compressed section is %d bytes, too small for an Elf32_Chdr", len(raw))
		}
		c.typ, c.size, align = o.u32(raw), uint64(o.u32(raw[4:])), uint64(o.u32(raw[8:]))
	}
	if align&(align-1) != 0 {
		return c, false, f.sectionErr(s, 0, nil, "compression header ch_addralign %d is not a power of two", align)
	}
	c.payload = raw[c.hdr:]
	if err := checkClaimedSize(c.size, uint64(len(c.payload))); err != nil {
		return c, false, f.sectionErr(s, 0, nil, "compression header ch_size %d: %s", c.size, err)
	}
	if c.typ != ELFCOMPRESS_ZLIB && c.typ != ELFCOMPRESS_ZSTD {
		return c, false, f.sectionErr(s, 0, nil, "unknown compression type ch_type %d", c.typ)
	}
	return c, true, nil
}

// checkInflation checks that claimed, the sizes claimed by the compressed
// sections a call decompresses up to and including s (which claims
// size), stays within the File's Limits.
func (f *File) checkInflation(s *Section, size, claimed uint64) error {
	file := uint64(len(f.data))
	limit := f.limits.MaxInflation*file + inflationSlack
	if f.limits.MaxInflation > (math.MaxUint64-inflationSlack)/max(file, 1) {
		limit = math.MaxUint64
	}
	if claimed <= limit {
		return nil
	}
	if claimed == size {
		return f.sectionErr(s, 0, nil, "claims %d bytes decompressed, more than %d times the file's %d bytes: "+
			"not plausible for debug sections (--max-inflation raises the limit)", size, f.limits.MaxInflation, file)
	}
	return f.sectionErr(s, 0, nil, "claims %d bytes decompressed, which makes the compressed sections %d bytes, "+
		"more than %d times the file's %d bytes: not plausible for debug sections (--max-inflation raises the limit)",
		size, claimed, f.limits.MaxInflation, file)
}

// decompress decodes c, the compressed bytes of s.
func (f *File) decompress(s *Section, c compressed) ([]byte, error) {
	var out []byte
	var err error
	switch c.typ {
	case ELFCOMPRESS_ZLIB:
		out, err = inflate(c.payload, c.size)
	default:
		out, err = unzstd(c.payload, c.size)
	}
	if err != nil {
		return nil, f.sectionErr(s, uint64(c.hdr), err, "decompressing %d bytes (ch_type %d) to %d", len(c.payload), c.typ, c.size)
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
