package elffile

import (
	"strings"
	"testing"
)

// hostileFixtures cover both classes, both byte orders, REL and RELA, and
// both compression formats.
var hostileFixtures = []string{
	"testdata/tiny-gcc.o",
	"testdata/tiny-gcc-zlib.o",
	"testdata/tiny-gcc-zstd.o",
	"testdata/tiny-gcc-zlib-gnu.o",
	"testdata/tiny-i386-linux-gnu-zlib.o",
	"testdata/tiny-aarch64_be-linux-gnu.o",
	"testdata/tiny-armeb-linux-gnueabi.o",
	"testdata/tiny-riscv64-linux-gnu.o",
}

// TestTruncated cuts each fixture at every length. The section header
// table is at the end of these objects, so every cut must be an error.
func TestTruncated(t *testing.T) {
	for _, path := range hostileFixtures {
		data := readFile(t, path)
		if err := exercise(t, data); err != nil {
			t.Fatalf("%s intact: %v", path, err)
		}
		for n := range len(data) {
			if exercise(t, data[:n:n]) == nil {
				t.Fatalf("%s cut to %d of %d bytes: no error", path, n, len(data))
			}
		}
	}
}

// TestCorruptHeaderBytes overwrites each byte of the ELF header and of the
// section header table with values likely to break sizes and offsets.
func TestCorruptHeaderBytes(t *testing.T) {
	for _, path := range hostileFixtures[1:6] {
		orig := readFile(t, path)
		f, err := NewFile(path, orig)
		if err != nil {
			t.Fatal(err)
		}
		shoff := shdrOffset(f, 0)
		end := shdrOffset(f, len(f.Sections))
		var regions [][2]uint64
		regions = append(regions, [2]uint64{0, ehdrSize(f)}, [2]uint64{shoff, end})
		data := make([]byte, len(orig))
		for _, r := range regions {
			for off := r[0]; off < r[1]; off++ {
				values := []byte{0xff, orig[off] ^ 1, orig[off] + 0x10}
				if testing.Short() {
					values = values[:1]
				}
				for _, v := range values {
					copy(data, orig)
					data[off] = v
					exercise(t, data)
				}
			}
		}
	}
}

func ehdrSize(f *File) uint64 {
	if f.Class == Class64 {
		return ehdr64Size
	}
	return ehdr32Size
}

// mutate loads a fixture, lets change corrupt a copy (given the File for
// finding offsets) and returns the corrupted image.
func mutate(t *testing.T, path string, change func(f *File, data []byte)) []byte {
	t.Helper()
	orig := readFile(t, path)
	f, err := NewFile(path, orig)
	if err != nil {
		t.Fatal(err)
	}
	data := append([]byte(nil), orig...)
	change(f, data)
	return data
}

// wantError checks that err is a FormatError with the given section and
// offset whose message contains msg.
func wantError(t *testing.T, err error, section string, offset uint64, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", msg)
	}
	fe := formatError(t, err)
	if fe.Section != section || fe.Offset != offset || !strings.Contains(fe.Error(), msg) {
		t.Fatalf("error %q (section %q offset 0x%x), want section %q offset 0x%x and %q", err, fe.Section, fe.Offset, section, offset, msg)
	}
}

func TestHostileHeaders(t *testing.T) {
	const obj = "testdata/tiny-gcc.o" // ELF64 little-endian
	cases := []struct {
		name   string
		change func(f *File, d []byte)
		off    func(f *File) uint64
		msg    string
	}{
		{"bad magic", func(f *File, d []byte) { d[1] = 'X' }, nil, "bad ELF magic"},
		{"bad class", func(f *File, d []byte) { d[4] = 3 }, func(*File) uint64 { return 4 }, "unknown ELF class"},
		{"bad data", func(f *File, d []byte) { d[5] = 0 }, func(*File) uint64 { return 5 }, "data encoding"},
		{"absurd e_shnum", func(f *File, d []byte) { f.order.putUint(d[60:], 2, 0xfeff) }, func(*File) uint64 { return 60 }, "exceed the file size"},
		{"absurd extended count", func(f *File, d []byte) {
			f.order.putUint(d[60:], 2, 0)
			f.order.putUint(d[shdrOffset(f, 0)+32:], 8, 1<<40)
		}, func(*File) uint64 { return 60 }, "exceed the file size"},
		{"e_shoff past end", func(f *File, d []byte) { f.order.putUint(d[40:], 8, uint64(len(d))-10) }, func(*File) uint64 { return 40 }, "e_shoff"},
		{"e_shoff overflow", func(f *File, d []byte) { f.order.putUint(d[40:], 8, ^uint64(0)-3) }, func(*File) uint64 { return 40 }, "e_shoff"},
		{"small e_shentsize", func(f *File, d []byte) { f.order.putUint(d[58:], 2, 40) }, func(*File) uint64 { return 58 }, "e_shentsize"},
		{"e_shstrndx out of range", func(f *File, d []byte) { f.order.putUint(d[62:], 2, 0x1000) }, func(*File) uint64 { return 62 }, "out of range"},
		{"e_shstrndx reserved", func(f *File, d []byte) { f.order.putUint(d[62:], 2, SHN_ABS) }, func(*File) uint64 { return 62 }, "reserved"},
		{"sh_offset out of range", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, f.Section(".debug_info").Index)+24:], 8, uint64(len(d)))
		}, func(f *File) uint64 { return shdrOffset(f, f.Section(".debug_info").Index) }, "outside the file"},
		{"sh_size overflow", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, f.Section(".debug_info").Index)+32:], 8, ^uint64(0))
		}, func(f *File) uint64 { return shdrOffset(f, f.Section(".debug_info").Index) }, "outside the file"},
		{"sh_name out of range", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, 3):], 4, 1<<30)
		}, func(f *File) uint64 { return shdrOffset(f, 3) }, "sh_name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f *File
			data := mutate(t, obj, func(ff *File, d []byte) { f = ff; c.change(ff, d) })
			_, err := NewFile(obj, data)
			var off uint64
			if c.off != nil {
				off = c.off(f)
			}
			wantError(t, err, "", off, c.msg)
			if fe := formatError(t, err); fe.File != obj {
				t.Errorf("error names file %q", fe.File)
			}
		})
	}
}

func TestHostileSymbols(t *testing.T) {
	const obj = "testdata/tiny-i386-linux-gnu.o" // ELF32: Sym at 16 bytes
	sym := func(f *File, i uint64) uint64 { return f.Section(".symtab").Offset + i*sym32Size }
	cases := []struct {
		name   string
		change func(f *File, d []byte)
		sec    string
		off    uint64
		msg    string
	}{
		{"bad sh_entsize", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, f.Section(".symtab").Index)+36:], 4, 7)
		}, ".symtab", 0, "sh_entsize 7"},
		{"ragged size", func(f *File, d []byte) {
			s := f.Section(".symtab")
			f.order.putUint(d[shdrOffset(f, s.Index)+20:], 4, s.Size-3)
		}, ".symtab", 0, "not a multiple"},
		{"st_name out of range", func(f *File, d []byte) { f.order.putUint(d[sym(f, 2):], 4, 1<<20) }, ".symtab", 2 * sym32Size, "st_name"},
		{"st_shndx out of range", func(f *File, d []byte) { f.order.putUint(d[sym(f, 2)+14:], 2, 0x1234) }, ".symtab", 2 * sym32Size, "section index 4660"},
		{"SHN_XINDEX without SYMTAB_SHNDX", func(f *File, d []byte) { f.order.putUint(d[sym(f, 2)+14:], 2, SHN_XINDEX) }, ".symtab", 0, "SHT_SYMTAB_SHNDX"},
		{"sh_link out of range", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, f.Section(".symtab").Index)+24:], 4, 999)
		}, ".symtab", 0, "sh_link 999"},
		{"sh_link to non-strtab", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, f.Section(".symtab").Index)+24:], 4, uint64(f.Section(".text").Index))
		}, ".symtab", 0, "not a string table"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := NewFile(obj, mutate(t, obj, c.change))
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Symbols()
			wantError(t, err, c.sec, c.off, c.msg)
		})
	}
}

func TestHostileRelocations(t *testing.T) {
	const obj = "testdata/tiny-gcc.o" // x86-64 RELA
	rela := func(f *File, i uint64) uint64 { return f.Section(".rela.debug_info").Offset + i*rela64Size }
	firstOff := func(f *File) uint64 { return f.order.u64(f.data[rela(f, 0):]) }
	cases := []struct {
		name   string
		change func(f *File, d []byte)
		sec    string
		off    func(f *File) uint64
		msg    string
	}{
		{"unknown type", func(f *File, d []byte) { f.order.putUint(d[rela(f, 0)+8:], 4, 9) }, ".debug_info", firstOff, "unsupported x86-64 relocation type 9 (.rela.debug_info entry 0)"},
		{"r_offset past the end", func(f *File, d []byte) {
			f.order.putUint(d[rela(f, 0):], 8, f.Section(".debug_info").Size-2)
		}, ".debug_info", func(f *File) uint64 { return f.Section(".debug_info").Size - 2 }, "lies outside the section"},
		{"r_offset overflow", func(f *File, d []byte) { f.order.putUint(d[rela(f, 0):], 8, ^uint64(0)-1) }, ".debug_info", func(*File) uint64 { return ^uint64(0) - 1 }, "lies outside"},
		{"symbol out of range", func(f *File, d []byte) { f.order.putUint(d[rela(f, 0)+12:], 4, 1<<20) }, ".debug_info", firstOff, "symbol index 1048576 out of range"},
		{"bad sh_entsize", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, f.Section(".rela.debug_info").Index)+56:], 8, 16)
		}, ".rela.debug_info", func(*File) uint64 { return 0 }, "sh_entsize 16"},
		{"bad sh_link", func(f *File, d []byte) {
			f.order.putUint(d[shdrOffset(f, f.Section(".rela.debug_info").Index)+40:], 4, 1)
		}, ".text", func(*File) uint64 { return 0 }, "not a symbol table"},
		{"unknown machine", func(f *File, d []byte) { f.order.putUint(d[18:], 2, 0x1234) }, ".debug_info", firstOff, "machine 4660"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var orig *File
			data := mutate(t, obj, func(f *File, d []byte) { orig = f; c.change(f, d) })
			f, err := NewFile(obj, data)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.DebugSections(".debug_info", ".debug_abbrev")
			wantError(t, err, c.sec, c.off(orig), c.msg)
		})
	}
}

func TestHostileCompression(t *testing.T) {
	for _, obj := range []string{"testdata/tiny-gcc-zlib.o", "testdata/tiny-gcc-zstd.o", "testdata/tiny-i386-linux-gnu-zlib.o"} {
		// Field offsets of ch_type, ch_size, ch_addralign and the header size.
		fields := func(f *File) (uint64, uint64, uint64, int, uint64) {
			if f.Class == Class64 {
				return 0, 8, 16, 8, chdr64Size
			}
			return 0, 4, 8, 4, chdr32Size
		}
		info := func(f *File) *Section { return f.Section(".debug_info") }
		cases := []struct {
			name   string
			change func(f *File, d []byte)
			msg    string
		}{
			{"unknown ch_type", func(f *File, d []byte) { typ, _, _, _, _ := fields(f); f.order.putUint(d[info(f).Offset+typ:], 4, 7) }, "unknown compression type ch_type 7"},
			{"ch_size over 4 GiB", func(f *File, d []byte) {
				if f.Class == Class32 {
					_, sz, _, w, _ := fields(f)
					f.order.putUint(d[info(f).Offset+sz:], w, 0xffffffff)
					return
				}
				_, sz, _, w, _ := fields(f)
				f.order.putUint(d[info(f).Offset+sz:], w, 5<<30)
			}, "ch_size"},
			{"ch_size ratio", func(f *File, d []byte) {
				_, sz, _, w, _ := fields(f)
				f.order.putUint(d[info(f).Offset+sz:], w, 64<<20)
			}, "more than 1000 times"},
			{"ch_size one more", func(f *File, d []byte) {
				_, sz, _, w, _ := fields(f)
				p := d[info(f).Offset+sz:]
				f.order.putUint(p, w, f.order.uint(p, w)+1)
			}, "decompress"},
			{"ch_size one less", func(f *File, d []byte) {
				_, sz, _, w, _ := fields(f)
				p := d[info(f).Offset+sz:]
				f.order.putUint(p, w, f.order.uint(p, w)-1)
			}, "decompress"},
			{"bad ch_addralign", func(f *File, d []byte) { _, _, al, w, _ := fields(f); f.order.putUint(d[info(f).Offset+al:], w, 3) }, "ch_addralign 3"},
			{"shorter than Chdr", func(f *File, d []byte) {
				f.order.putUint(d[shdrOffset(f, info(f).Index)+sizeField(f):], sizeWidth(f), 5)
			}, "too small for an Elf"},
			{"truncated stream", func(f *File, d []byte) {
				s := info(f)
				f.order.putUint(d[shdrOffset(f, s.Index)+sizeField(f):], sizeWidth(f), s.Size/2)
			}, "decompress"},
		}
		for _, c := range cases {
			t.Run(obj+"/"+c.name, func(t *testing.T) {
				f, err := NewFile(obj, mutate(t, obj, c.change))
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.SectionData(f.Section(".debug_info"))
				if err == nil || !strings.Contains(err.Error(), c.msg) {
					t.Fatalf("error %v, want one containing %q", err, c.msg)
				}
				if fe := formatError(t, err); fe.Section != ".debug_info" {
					t.Errorf("error names section %q", fe.Section)
				}
				_, err = f.DebugSections(".debug_info")
				if err == nil {
					t.Error("DebugSections: no error")
				}
			})
		}
	}
}

// TestCorruptZlibPayload flips a byte inside a zlib stream: the Adler-32
// check (or the inflater) must reject it.
func TestCorruptZlibPayload(t *testing.T) {
	const obj = "testdata/tiny-gcc-zlib.o"
	data := mutate(t, obj, func(f *File, d []byte) {
		s := f.Section(".debug_info")
		d[s.Offset+chdr64Size+s.Size/2-chdr64Size/2] ^= 0x55
	})
	f, err := NewFile(obj, data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.SectionData(f.Section(".debug_info"))
	wantError(t, err, ".debug_info", chdr64Size, "decompressing")
}

// sizeField and sizeWidth locate sh_size in a section header.
func sizeField(f *File) uint64 {
	if f.Class == Class64 {
		return 32
	}
	return 20
}

func sizeWidth(f *File) int {
	if f.Class == Class64 {
		return 8
	}
	return 4
}

// TestInflationLimit: compressed sections whose claimed sizes add up to
// more than Limits.MaxInflation times the file (plus the slack) are
// refused before anything is decompressed, naming the section that crosses
// the limit; a raised limit lets the claim through to the decoder, which
// then finds the stream shorter than claimed.
func TestInflationLimit(t *testing.T) {
	for _, obj := range []string{"testdata/tiny-gcc-zlib.o", "testdata/tiny-gcc-zstd.o"} {
		claim := func(sizes map[string]uint64) []byte {
			return mutate(t, obj, func(f *File, d []byte) {
				for name, size := range sizes {
					f.order.putUint(d[f.Section(name).Offset+8:], 8, size)
				}
			})
		}
		limit := uint64(DefaultMaxInflation*len(readFile(t, obj)) + inflationSlack)
		cases := []struct {
			name  string
			sizes map[string]uint64
			sec   string // the section refused, "" for none
			msg   string
		}{
			{"one section", map[string]uint64{".debug_info": limit + 1}, ".debug_info",
				"more than 32 times the file's"},
			{"two sections", map[string]uint64{".debug_info": limit/2 + 1, ".debug_abbrev": limit / 2}, ".debug_abbrev",
				"which makes the compressed sections"},
			{"at the limit", map[string]uint64{".debug_info": limit/2 + 1, ".debug_abbrev": limit/2 - 1}, "",
				""},
		}
		for _, c := range cases {
			t.Run(strings.TrimPrefix(obj, "testdata/")+"/"+c.name, func(t *testing.T) {
				data := claim(c.sizes)
				f, err := NewFile(obj, data)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.DebugSections(".debug_info", ".debug_abbrev")
				if c.sec == "" {
					if err == nil || !strings.Contains(err.Error(), "decompressing") {
						t.Fatalf("error %v, want the decoder's (the claim is within the limit)", err)
					}
					return
				}
				wantError(t, err, c.sec, 0, c.msg)
				if !strings.Contains(err.Error(), "--max-inflation") {
					t.Errorf("error %v does not name the flag that raises the limit", err)
				}
				f.limits.MaxInflation = 1000
				if _, err = f.DebugSections(".debug_info", ".debug_abbrev"); err == nil || !strings.Contains(err.Error(), "decompressing") {
					t.Errorf("with the limit raised: error %v, want the decoder's", err)
				}
			})
		}
	}
}
