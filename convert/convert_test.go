package convert

import (
	"strings"
	"testing"

	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
)

// TestConvertVlenLimit checks that a DWARF type with more members,
// enumerators or parameters than BTF's 16-bit vlen holds is refused with an
// error naming the CU, the DIE and the type, and that one at the limit is
// converted.
func TestConvertVlenLimit(t *testing.T) {
	const limit = 0xffff
	cases := []struct {
		name  string
		entry loader.TypeEntry
		fill  func(tab *loader.TypeTable, n int)
		n     int  // entries in the list
		ok    bool // whether it fits
		want  string
	}{
		{"struct at the limit", loader.TypeEntry{Tag: dwarf.TagStructureType, Name: "big", Size: 4},
			func(tab *loader.TypeTable, n int) { tab.Members = make([]loader.Member, n) }, limit, true, ""},
		{"struct", loader.TypeEntry{Tag: dwarf.TagStructureType, Name: "big", Size: 4},
			func(tab *loader.TypeTable, n int) { tab.Members = make([]loader.Member, n) }, limit + 1, false,
			`DW_TAG_structure_type "big": btf: adding type 2: STRUCT with 65536 members, more than the 65535 BTF allows`},
		{"anonymous union", loader.TypeEntry{Tag: dwarf.TagUnionType, Size: 4},
			func(tab *loader.TypeTable, n int) { tab.Members = make([]loader.Member, n) }, limit + 1, false,
			`DW_TAG_union_type anonymous: btf: adding type 2: UNION with 65536 members`},
		{"enum", loader.TypeEntry{Tag: dwarf.TagEnumerationType, Name: "many", Size: 4},
			func(tab *loader.TypeTable, n int) { tab.Enums = make([]loader.Enumerator, n) }, limit + 1, false,
			`DW_TAG_enumeration_type "many": btf: adding type 2: ENUM with 65536 values`},
		{"subroutine at the limit", loader.TypeEntry{Tag: dwarf.TagSubroutineType},
			func(tab *loader.TypeTable, n int) { tab.Params = make([]loader.Param, n) }, limit, true, ""},
		// Varargs take one more parameter slot.
		{"varargs subroutine", loader.TypeEntry{Tag: dwarf.TagSubroutineType, Flags: loader.FlagVarargs},
			func(tab *loader.TypeTable, n int) { tab.Params = make([]loader.Param, n) }, limit, false,
			`DW_TAG_subroutine_type anonymous: btf: adding type 2: FUNC_PROTO with 65536 parameters`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			en := c.entry
			en.Count, en.Offset = uint32(c.n), 0x1234
			tab := &loader.TypeTable{
				Unit: &dwarf.Unit{Index: 7, Name: "big.c"},
				Entries: []loader.TypeEntry{{},
					{Tag: dwarf.TagBaseType, Name: "int", Size: 4, Encoding: uint8(dwarf.EncSigned)}, en},
			}
			c.fill(tab, c.n)
			frag, err := New(Options{}, nil).Convert(tab, nil)
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				want := c.n
				if en.Flags&loader.FlagVarargs != 0 {
					want++
				}
				if v := frag.Types.Vlen(2); v != want {
					t.Errorf("vlen %d, want %d", v, want)
				}
				return
			}
			if err == nil {
				t.Fatal("converted")
			}
			if want := "CU 7 (big.c) DIE 0x1234: " + c.want; !strings.Contains(err.Error(), want) {
				t.Errorf("got  %v\nwant it to contain %s", err, want)
			}
		})
	}
}
