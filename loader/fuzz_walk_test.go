package loader

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// walkImage does what an encode does with an ELF image, up to the type
// tables: Open's work on an in-memory image, the symbol tables, .BTF_ids,
// and a walk of every unit, followed by the type table queries the encoder
// makes (type names, packed inference, variable sizes). Errors must be
// *elffile.FormatError or *dwarf.DecodeError naming the file; anything
// else (a panic, a hang) is a bug.
func walkImage(t *testing.T, data []byte) {
	const name = "fuzz.o"
	checkErr := func(err error) {
		t.Helper()
		var fe *elffile.FormatError
		var de *dwarf.DecodeError
		switch {
		case errors.As(err, &fe), errors.As(err, &de):
		default:
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error %T does not name the file: %v", err, err)
			}
		}
	}
	f, err := elffile.NewFile(name, data)
	if err != nil {
		checkErr(err)
		return
	}
	defer f.Close()
	in, err := newInput(f, OpenOptions{})
	if err != nil {
		checkErr(err)
		return
	}
	if syms, err := f.Symbols(); err == nil {
		if err := MarkBTFIDs(f, syms, CollectElfFuncs(syms)); err != nil {
			checkErr(err)
		}
	}
	for _, opts := range []WalkOptions{
		{TypeTags: true, DeclTags: true, Arch: ArchFor(f.Machine)},
		{TrueSignature: true, Arch: ArchFor(62)},
	} {
		w := NewWalker(in.DWARF, f.ByteOrder, opts)
		var tab TypeTable
		if in.Merge && len(in.Units) > 0 {
			if err := w.WalkMerged(in.Units, &tab, nil); err != nil {
				checkErr(err)
			} else {
				exerciseTable(&tab)
			}
		}
		for i := range in.Units {
			if err := w.Walk(&in.Units[i], &tab); err != nil {
				checkErr(err)
				continue
			}
			exerciseTable(&tab)
		}
	}
}

// exerciseTable makes the queries of package encode on every entry.
func exerciseTable(t *TypeTable) {
	packed := NewPackedInference(t)
	for id := TypeID(0); int(id) < len(t.Entries); id++ {
		_ = t.TypeName(id)
		_ = t.VarSize(id)
		_ = t.IsStructParam(id)
		_ = packed.Packed(id)
	}
	for _, p := range t.FuncParams {
		_ = t.TypeName(p.Type)
	}
}

// FuzzWalk feeds mutated objects through the loader. Seeds: the fixtures,
// with the packed-struct ones (bitfields and structs at odd offsets) and
// the LTO ones (merged walks).
func FuzzWalk(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/fixtures/*.o")
	so, _ := filepath.Glob("../testdata/fixtures/*.so")
	packed, _ := filepath.Glob("../testdata/fixtures/packed/*.o")
	lto, _ := filepath.Glob("../testdata/fixtures/lto/*.*[eo]")
	for _, p := range append(append(append(paths, so...), packed...), lto...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(walkImage)
}
