package elffile

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"reflect"
	"testing"
	"unsafe"

	"github.com/btfgate/btfgate/internal/corpus"
)

// stdlibRelocated applies the x86-64 RELA relocations of each named section
// of the ET_REL file at path using only debug/elf, as an oracle.
func stdlibRelocated(t *testing.T, path string, names []string) map[string][]byte {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	if ef.Machine != elf.EM_X86_64 || ef.Type != elf.ET_REL {
		t.Fatalf("oracle handles x86-64 ET_REL only, not %v %v", ef.Machine, ef.Type)
	}
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, name := range names {
		sec := ef.Section(name)
		if sec == nil {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		for _, rs := range ef.Sections {
			if rs.Type != elf.SHT_RELA || ef.Sections[rs.Info] != sec {
				continue
			}
			rd, err := rs.Data()
			if err != nil {
				t.Fatal(err)
			}
			for len(rd) >= 24 {
				off, info, addend := binary.LittleEndian.Uint64(rd), binary.LittleEndian.Uint64(rd[8:]), binary.LittleEndian.Uint64(rd[16:])
				rd = rd[24:]
				var s uint64
				if n := info >> 32; n > 0 && syms[n-1].Section != elf.SHN_UNDEF && syms[n-1].Section != elf.SHN_COMMON {
					s = syms[n-1].Value
				}
				switch elf.R_X86_64(info & 0xffffffff) {
				case elf.R_X86_64_NONE:
				case elf.R_X86_64_64:
					binary.LittleEndian.PutUint64(data[off:], s+addend)
				case elf.R_X86_64_32, elf.R_X86_64_32S:
					binary.LittleEndian.PutUint32(data[off:], uint32(s+addend))
				default:
					t.Fatalf("oracle: relocation type %v in %s", elf.R_X86_64(info&0xffffffff), rs.Name)
				}
			}
		}
		out[name] = data
	}
	return out
}

func TestModuleDebugSectionsMatchOracle(t *testing.T) {
	for _, m := range corpus.Modules() {
		t.Run(m, func(t *testing.T) {
			path := corpus.Module(t, m)
			f := openTest(t, path)
			got, err := f.DebugSections(debugNames...)
			if err != nil {
				t.Fatal(err)
			}
			want := stdlibRelocated(t, path, debugNames)
			if len(got) != len(want) || len(got) < 8 {
				t.Errorf("got %d sections, oracle %d", len(got), len(want))
			}
			for name, w := range want {
				if !bytes.Equal(got[name], w) {
					t.Errorf("%s differs from the oracle's relocation (%d vs %d bytes)", name, len(got[name]), len(w))
				}
			}
		})
	}
}

// TestExt4DWARFMatchesStdlib reads every entry of ext4.ko's DWARF through the
// stdlib reader twice: over our relocated sections and over debug/elf's
// own DWARF(), which relocates internally.
func TestExt4DWARFMatchesStdlib(t *testing.T) {
	path := corpus.Module(t, "ext4")
	f := openTest(t, path)
	secs, err := f.DebugSections(debugNames...)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	want, err := ef.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	n := compareDWARF(t, dwarfData(t, secs), want, testing.Short())
	if want := map[bool]int{false: 100000, true: 30}[testing.Short()]; n < want {
		t.Errorf("compared only %d entries, want at least %d", n, want)
	}
}

// compareDWARF walks both readers in step and fails on the first entry that
// differs. With cusOnly it compares compile units and skips their children.
// It returns the number of entries compared.
func compareDWARF(t *testing.T, got, want *dwarf.Data, cusOnly bool) int {
	t.Helper()
	gr, wr := got.Reader(), want.Reader()
	n, cus := 0, 0
	for {
		g, gerr := gr.Next()
		w, werr := wr.Next()
		if gerr != nil || werr != nil {
			t.Fatalf("entry %d: reader errors: ours %v, stdlib's %v", n, gerr, werr)
		}
		if g == nil || w == nil {
			if g != w {
				t.Fatalf("entry %d: one reader ended early (ours %v, stdlib's %v)", n, g, w)
			}
			break
		}
		n++
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("entry %d differs:\nours   %+v\nstdlib %+v", n, g, w)
		}
		if g.Tag == dwarf.TagCompileUnit {
			cus++
			if name, _ := g.Val(dwarf.AttrName).(string); name == "" {
				t.Errorf("compile unit %d has no name", cus)
			}
			if cusOnly {
				gr.SkipChildren()
				wr.SkipChildren()
			}
			compareLines(t, got, want, g, w)
		}
	}
	if cus == 0 {
		t.Error("no compile units")
	}
	return n
}

// compareLines compares the line tables of one compile unit.
func compareLines(t *testing.T, got, want *dwarf.Data, gcu, wcu *dwarf.Entry) {
	t.Helper()
	gl, gerr := got.LineReader(gcu)
	wl, werr := want.LineReader(wcu)
	if gerr != nil || werr != nil || (gl == nil) != (wl == nil) {
		t.Fatalf("line readers: ours %v, stdlib's %v", gerr, werr)
	}
	if gl == nil {
		return
	}
	var ge, we dwarf.LineEntry
	for {
		gerr, werr := gl.Next(&ge), wl.Next(&we)
		if gerr != werr {
			t.Fatalf("line table: ours %v, stdlib's %v", gerr, werr)
		}
		if gerr != nil {
			return
		}
		if ge.Address != we.Address || ge.Line != we.Line || ge.File.Name != we.File.Name || ge.EndSequence != we.EndSequence {
			t.Fatalf("line row differs: ours %+v, stdlib %+v", ge, we)
		}
	}
}

// TestFixtureDWARF checks each committed cross-target object: the compile
// unit resolves to tiny.c, and each function's DW_AT_low_pc and
// DW_AT_high_pc (both relocated on some targets) match its symbol's value
// and size, and the line table has a row at each function's start.
func TestFixtureDWARF(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			f := openTest(t, path)
			secs, err := f.DebugSections(debugNames...)
			if err != nil {
				t.Fatal(err)
			}
			if f.order.big {
				// debug/dwarf (Go 1.26) cannot read big-endian DWARF 5
				// (DW_FORM_strx fails even on its own DWARF()); the
				// llvm-dwarfdump test covers these targets.
				t.Skip("debug/dwarf cannot read big-endian DWARF 5")
			}
			d := dwarfData(t, secs)
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			checkFunctions(t, f, d, syms)
			if stdlibRelocates(f) {
				ef, err := elf.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer ef.Close()
				want, err := ef.DWARF()
				if err != nil {
					t.Fatalf("debug/elf DWARF: %v", err)
				}
				compareDWARF(t, d, want, false)
			}
		})
	}
}

// stdlibRelocates reports whether debug/elf applies every relocation type
// in the fixtures for f's machine (it ignores RISC-V ADD/SUB pairs and lacks
// 32-bit RISC-V).
func stdlibRelocates(f *File) bool { return f.Machine != EM_RISCV }

func checkFunctions(t *testing.T, f *File, d *dwarf.Data, syms []Symbol) {
	t.Helper()
	bySym := map[string]Symbol{}
	for _, s := range syms {
		if s.Type() == STT_FUNC {
			bySym[s.Name] = s
		}
	}
	r := d.Reader()
	var cu *dwarf.Entry
	starts := map[uint64]string{}
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			cu = e
			if name, _ := e.Val(dwarf.AttrName).(string); name != "tiny.c" {
				t.Errorf("compile unit name %q, want tiny.c", name)
			}
		case dwarf.TagSubprogram:
			name, _ := e.Val(dwarf.AttrName).(string)
			sym, ok := bySym[name]
			if !ok || e.Val(dwarf.AttrLowpc) == nil {
				continue // the inlined sq has no code of its own
			}
			ranges, err := d.Ranges(e)
			if err != nil || len(ranges) != 1 {
				t.Fatalf("%s: ranges %v, %v", name, ranges, err)
			}
			lo, hi := ranges[0][0], ranges[0][1]
			if lo != sym.Value {
				t.Errorf("%s: DW_AT_low_pc 0x%x, symbol value 0x%x", name, lo, sym.Value)
			}
			if hi-lo != sym.Size {
				t.Errorf("%s: length 0x%x, symbol size 0x%x", name, hi-lo, sym.Size)
			}
			starts[lo] = name
		}
	}
	if len(starts) != 2 {
		t.Fatalf("found %d functions with code (%v), want dist2 and pick", len(starts), starts)
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		t.Fatalf("line reader: %v", err)
	}
	var le dwarf.LineEntry
	for lr.Next(&le) == nil {
		delete(starts, le.Address)
	}
	if len(starts) != 0 {
		t.Errorf("no line row at the start of %v", starts)
	}
}

// TestCompressedMatchesUncompressed checks the committed compressed
// objects against the objects they were made from.
func TestCompressedMatchesUncompressed(t *testing.T) {
	for _, c := range [][2]string{
		{"tiny-gcc-zlib.o", "tiny-gcc.o"},
		{"tiny-gcc-zstd.o", "tiny-gcc.o"},
		{"tiny-gcc-zlib-gnu.o", "tiny-gcc.o"},
		{"tiny-aarch64_be-linux-gnu-zlib.o", "tiny-aarch64_be-linux-gnu.o"},
		{"tiny-i386-linux-gnu-zlib.o", "tiny-i386-linux-gnu.o"},
	} {
		t.Run(c[0], func(t *testing.T) {
			compareCompressed(t, "testdata/"+c[0], "testdata/"+c[1])
		})
	}
}

// compareCompressed checks that the debug sections of compressed, which
// must have some compressed, equal those of plain, and that SectionData
// decompresses SHF_COMPRESSED sections to the plain bytes.
func compareCompressed(t *testing.T, compressed, plain string) {
	t.Helper()
	zf, pf := openTest(t, compressed), openTest(t, plain)
	n := 0
	for i := range zf.Sections {
		zs := &zf.Sections[i]
		if zs.Flags&SHF_COMPRESSED == 0 && (len(zs.Name) < 8 || zs.Name[:8] != ".zdebug_") {
			continue
		}
		n++
		if zs.Flags&SHF_COMPRESSED == 0 {
			continue
		}
		got, err := zf.SectionData(zs)
		if err != nil {
			t.Fatalf("SectionData(%s): %v", zs.Name, err)
		}
		want, err := pf.SectionData(pf.Section(zs.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: decompressed %d bytes differ from the uncompressed %d", zs.Name, len(got), len(want))
		}
	}
	if n < 4 {
		t.Fatalf("%s has only %d compressed sections", compressed, n)
	}
	got, err := zf.DebugSections(debugNames...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pf.DebugSections(debugNames...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d debug sections, uncompressed file has %d", len(got), len(want))
	}
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s: %d bytes differ from the uncompressed file's %d", name, len(got[name]), len(w))
		}
	}
}

// TestVmlinuxDebugSectionsZeroCopy checks that an executable's uncompressed
// debug sections come straight from the mapping.
func TestVmlinuxDebugSectionsZeroCopy(t *testing.T) {
	f := openTest(t, corpus.Vmlinux(t))
	secs, err := f.DebugSections(debugNames...)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_loclists", ".debug_rnglists"} {
		s := f.Section(name)
		b, ok := secs[name]
		if !ok || uint64(len(b)) != s.Size || unsafe.SliceData(b) != &f.data[s.Offset] {
			t.Errorf("%s: %d bytes, not the mapped %d at 0x%x", name, len(b), s.Size, s.Offset)
		}
	}
	for _, name := range []string{".debug_loc", ".debug_ranges", ".debug_addr", ".debug_str_offsets"} {
		if _, ok := secs[name]; ok {
			t.Errorf("%s present, but the corpus kernel has no such section", name)
		}
	}
}
