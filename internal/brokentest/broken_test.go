package brokentest

import (
	"math/rand/v2"
	"testing"

	"github.com/btfgate/btfgate/loader/elffile"
)

// fixtureSources are the intact objects the mutations start from: both
// compilers, DWARF 4 and 5, ELF32, big-endian, compressed, linked. The
// first gets every case; the others a third of the generic ones (the
// targeted ones all), to keep the suite within CI time.
func fixtureSources() []string {
	if testing.Short() {
		return []string{"types.gcc-dwarf5.o", "types.clang-aarch64_be.o", "types.gcc-dwarf5-zstd.o"}
	}
	return []string{"types.gcc-dwarf5.o", "types.clang-dwarf4.o", "types.clang-i386.o", "types.clang-aarch64_be.o",
		"types.gcc-dwarf5-zstd.o", "types.gcc-dwarf5-zlib.o", "types.gcc-dwarf5.so", "tags.clang-dwarf5.o"}
}

func TestBrokenFixtures(t *testing.T) {
	for i, src := range fixtureSources() {
		t.Run(src, func(t *testing.T) {
			path := fixturePath(src)
			im := parseImage(t, path, readFixture(t, src))
			rng := rand.New(rand.NewPCG(1, uint64(len(im.data))))
			every := 1
			if i > 0 {
				every = 3
			}
			if testing.Short() {
				every *= 3
			}
			// Targeted cases: all of them.
			cases := append(ehdrAbsurd(im, path), missingSections(t, im, path)...)
			// Generic cases, thinned.
			var generic []brokenCase
			generic = append(generic, truncations(im, path, 50)...)
			generic = append(generic, ehdrFlips(im, path)...)
			generic = append(generic, shdrAbsurd(im, path, nil, 20, rng)...)
			generic = append(generic, sectionCases(im, path, 10, rng)...)
			if di := im.section(".debug_info"); di >= 0 && im.secs[di].Flags&elffile.SHF_COMPRESSED == 0 {
				generic = append(generic, refCases(t, im, path, 6)...)
			}
			cases = append(cases, thin(generic, every)...)
			runCases(t, "fixture "+src, cases)
		})
	}
}

// TestUnsupportedTags encodes the fixtures with DWARF that BTF cannot
// represent: they must fail with the CU and DIE named.
func TestUnsupportedTags(t *testing.T) {
	var cases []brokenCase
	for _, src := range []string{"atomic.gcc-dwarf5.o", "atomic.clang-dwarf5.o", "complex.gcc-dwarf4.o", "complex.clang-dwarf5.o"} {
		cases = append(cases, brokenCase{name: src, data: readFixture(t, src), mustFail: true, source: fixturePath(src)})
	}
	runCases(t, "unsupported", cases)
}

func TestBrokenSynthetic(t *testing.T) {
	runCases(t, "synthetic", synthImages(t))
}
