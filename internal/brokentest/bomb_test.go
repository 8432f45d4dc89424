package brokentest

import (
	"bytes"
	"compress/zlib"
	"math/rand/v2"
	"testing"
)

// zlibBomb returns orig, an ELF image, with its .debug_str replaced by an
// SHF_COMPRESSED zlib section that inflates to size bytes: 1 MiB that does
// not compress, then zeros. The stream is honest (it inflates to the size
// its header claims) and, at about 1.4 MB for 384 MiB, within the 1000:1
// that zlib can reach, so only a bound on the whole file's claims stops it.
func zlibBomb(tb testing.TB, orig []byte, size int) []byte {
	tb.Helper()
	im := parseImage(tb, "x.o", orig)
	idx := im.section(".debug_str")
	if idx < 0 || !im.is64 {
		tb.Fatal("the fixture has no .debug_str or is not ELF64")
	}
	var z bytes.Buffer
	w, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		tb.Fatal(err)
	}
	noise := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	w.Write(noise)
	zeros := make([]byte, 1<<20)
	for n := len(noise); n < size; n += len(zeros) {
		w.Write(zeros[:min(len(zeros), size-n)])
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	// Elf64_Chdr: ch_type ELFCOMPRESS_ZLIB, ch_reserved, ch_size, ch_addralign.
	chdr := make([]byte, 24)
	putUint(im.order, chdr[0:], 4, 1)
	putUint(im.order, chdr[8:], 8, uint64(size))
	putUint(im.order, chdr[16:], 8, 1)

	b := im.clone()
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	off := len(b)
	b = append(append(b, chdr...), z.Bytes()...)
	set := func(name string, v uint64) {
		f := im.shdrField(idx, name)
		putUint(im.order, b[f.off:], f.width, v)
	}
	set("sh_offset", uint64(off))
	set("sh_size", uint64(len(b)-off))
	set("sh_flags", im.get(im.shdrField(idx, "sh_flags"))|0x800) // SHF_COMPRESSED
	set("sh_addralign", 8)
	return b
}
