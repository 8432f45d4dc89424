package btf

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unit builds one compile unit's types into t; s interns a string.
type unit func(t *Types, s func(string) uint32)

// dedupCase is a hand-built dedup input: optional base types (making the
// units split BTF on them), units appended in order, and the expected
// output in formatTypes' notation.
type dedupCase struct {
	name  string
	base  unit
	units []unit
	want  string
}

// build assembles the case's input (and base, or nil).
func (c dedupCase) build(t *testing.T) (in, base *Types) {
	t.Helper()
	in = NewTypes(NewStrings())
	if c.base != nil {
		base = NewTypes(NewStrings())
		c.base(base, base.Strings.Add)
		in = NewSplitTypes(base)
	}
	for _, u := range c.units {
		frag := NewTypes(NewStrings())
		u(frag, frag.Strings.Add)
		if err := in.Append(frag, nil); err != nil {
			t.Fatal(err)
		}
	}
	return in, base
}

func int32T(t *Types, s func(string) uint32) TypeID { return t.AddInt(s("int"), 4, IntSigned, 0, 32) }

// sameUnitTwice returns u twice, as if two units included the same header.
func sameUnitTwice(u unit) []unit { return []unit{u, u} }

// dedupCases are the hand-built cases; the expectations were checked
// against libbpf (TestDedupCases does so when BTFGATE_LIBBPF_DEDUP is set).
func dedupCases() []dedupCase {
	return []dedupCase{
		{
			name: "struct defined in one unit, only declared in another",
			units: []unit{
				func(t *Types, s func(string) uint32) { // struct foo { int x; };
					t.AddStruct(false, s("foo"), 4, []Member{{Name: s("x"), Type: 2}})
					int32T(t, s)
				},
				func(t *Types, s func(string) uint32) { // struct foo; typedef struct foo *foo_ptr;
					t.AddFwd(s("foo"), false)
					t.AddRef(KindPtr, 0, 1)
					t.AddRef(KindTypedef, s("foo_ptr"), 2)
				},
			},
			want: `
[1] STRUCT 'foo' size=4 { x:2@0 }
[2] INT 'int' size=4 enc=1 off=0 bits=32
[3] PTR '' ->1
[4] TYPEDEF 'foo_ptr' ->3`,
		},
		{
			name: "equivalent graphs where one has a FWD for an inner struct",
			units: []unit{
				func(t *Types, s func(string) uint32) { // struct inner { int x; }; struct outer { struct inner *p; };
					int32T(t, s)
					t.AddStruct(false, s("inner"), 4, []Member{{Name: s("x"), Type: 1}})
					t.AddRef(KindPtr, 0, 2)
					t.AddStruct(false, s("outer"), 8, []Member{{Name: s("p"), Type: 3}})
				},
				func(t *Types, s func(string) uint32) { // struct inner; struct outer { struct inner *p; };
					t.AddFwd(s("inner"), false)
					t.AddRef(KindPtr, 0, 1)
					t.AddStruct(false, s("outer"), 8, []Member{{Name: s("p"), Type: 2}})
				},
			},
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] STRUCT 'inner' size=4 { x:1@0 }
[3] PTR '' ->2
[4] STRUCT 'outer' size=8 { p:3@0 }`,
		},
		{
			name: "FWD of a name two different structs have stays",
			units: []unit{
				func(t *Types, s func(string) uint32) { // struct foo { int x; };
					t.AddStruct(false, s("foo"), 4, []Member{{Name: s("x"), Type: 2}})
					int32T(t, s)
				},
				func(t *Types, s func(string) uint32) { // struct foo; typedef struct foo *foo_ptr;
					t.AddFwd(s("foo"), false)
					t.AddRef(KindPtr, 0, 1)
					t.AddRef(KindTypedef, s("foo_ptr"), 2)
				},
				func(t *Types, s func(string) uint32) { // struct foo { int x; int y; };
					t.AddStruct(false, s("foo"), 8, []Member{{Name: s("x"), Type: 2}, {Name: s("y"), Type: 2, BitOffset: 32}})
					int32T(t, s)
				},
			},
			want: `
[1] STRUCT 'foo' size=4 { x:2@0 }
[2] INT 'int' size=4 enc=1 off=0 bits=32
[3] FWD 'foo'
[4] PTR '' ->3
[5] TYPEDEF 'foo_ptr' ->4
[6] STRUCT 'foo' size=8 { x:2@0 y:2@32 }`,
		},
		{
			name: "FWD of the wrong kind stays",
			units: []unit{
				func(t *Types, s func(string) uint32) { // struct foo { int x; };
					t.AddStruct(false, s("foo"), 4, []Member{{Name: s("x"), Type: 2}})
					int32T(t, s)
				},
				func(t *Types, s func(string) uint32) { // union foo; typedef union foo *foo_ptr;
					t.AddFwd(s("foo"), true)
					t.AddRef(KindPtr, 0, 1)
					t.AddRef(KindTypedef, s("foo_ptr"), 2)
				},
			},
			want: `
[1] STRUCT 'foo' size=4 { x:2@0 }
[2] INT 'int' size=4 enc=1 off=0 bits=32
[3] FWD 'foo' union
[4] PTR '' ->3
[5] TYPEDEF 'foo_ptr' ->4`,
		},
		{
			name:  "self-referencing struct in three units",
			units: []unit{selfRef, selfRef, selfRef},
			want: `
[1] STRUCT 'a' size=8 { next:2@0 }
[2] PTR '' ->1`,
		},
		{
			name: "mutually referencing structs, one unit declaring one of them",
			units: []unit{
				func(t *Types, s func(string) uint32) { // struct a { struct b *b; }; struct b { struct a *a; };
					t.AddStruct(false, s("a"), 8, []Member{{Name: s("b"), Type: 2}})
					t.AddRef(KindPtr, 0, 3)
					t.AddStruct(false, s("b"), 8, []Member{{Name: s("a"), Type: 4}})
					t.AddRef(KindPtr, 0, 1)
				},
				func(t *Types, s func(string) uint32) { // struct b; struct a { struct b *b; };
					t.AddFwd(s("b"), false)
					t.AddRef(KindPtr, 0, 1)
					t.AddStruct(false, s("a"), 8, []Member{{Name: s("b"), Type: 2}})
				},
			},
			want: `
[1] STRUCT 'a' size=8 { b:2@0 }
[2] PTR '' ->3
[3] STRUCT 'b' size=8 { a:4@0 }
[4] PTR '' ->1`,
		},
		{
			name: "enum declarations resolve to full enums",
			units: []unit{
				func(t *Types, s func(string) uint32) {
					t.AddEnum(s("e1"), 4, false, nil) // enum e1; before its definition
					t.AddEnum(s("e1"), 4, false, []EnumValue{{Name: s("e1_val"), Value: 123}})
					t.AddEnum(s("e2"), 4, false, []EnumValue{{Name: s("e2_val"), Value: 456}})
					t.AddEnum(s("e2"), 4, false, nil) // enum e2; after its definition
					t.AddEnum(s("e1"), 1, false, nil) // the size of a declaration does not matter
					t.AddEnum(s("e1"), 4, false, []EnumValue{{Name: s("e1_val"), Value: 321}})
				},
			},
			want: `
[1] ENUM 'e1' size=4 { e1_val=123 }
[2] ENUM 'e2' size=4 { e2_val=456 }
[3] ENUM 'e1' size=4 { e1_val=321 }`,
		},
		{
			name: "enum declaration resolves to enum64, and references follow",
			units: []unit{
				func(t *Types, s func(string) uint32) {
					t.AddEnum64(s("e1"), 8, false, []EnumValue{{Name: s("e1_val"), Value: 1}})
					t.AddEnum(s("e1"), 4, false, nil)
					t.AddRef(KindTypedef, s("td"), 2)
				},
			},
			want: `
[1] ENUM64 'e1' size=8 { e1_val=1 }
[2] TYPEDEF 'td' ->1`,
		},
		{
			name: "identical arrays emitted twice in one unit",
			units: []unit{
				func(t *Types, s func(string) uint32) { // struct s { int x[2]; int y[2]; };
					int32T(t, s)
					t.AddArray(1, 1, 2)
					t.AddStruct(false, s("s"), 16, []Member{{Name: s("x"), Type: 2}, {Name: s("y"), Type: 2, BitOffset: 64}})
				},
				func(t *Types, s func(string) uint32) { // the same, with one array type per member
					int32T(t, s)
					t.AddArray(1, 1, 2)
					t.AddArray(1, 1, 2)
					t.AddStruct(false, s("s"), 16, []Member{{Name: s("x"), Type: 2}, {Name: s("y"), Type: 3, BitOffset: 64}})
				},
			},
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] ARRAY '' 1[2] idx=1
[3] STRUCT 's' size=16 { x:2@0 y:2@64 }`,
		},
		{
			// libbpf's btf_dedup_identical_types compares an array's element
			// and index types with themselves (a2 = btf_array(t1)), so any two
			// arrays of the same length count as identical there: struct s with
			// a long[2] member merges into the struct s with int[2]. Dedup does
			// the same, to produce the same output.
			name: "arrays of equal length count as identical (libbpf quirk)",
			units: []unit{
				func(t *Types, s func(string) uint32) { // struct s { int x[2]; int y[2]; };
					int32T(t, s)
					t.AddArray(1, 1, 2)
					t.AddStruct(false, s("s"), 16, []Member{{Name: s("x"), Type: 2}, {Name: s("y"), Type: 2, BitOffset: 64}})
				},
				func(t *Types, s func(string) uint32) { // struct s { int x[2]; long y[2]; };
					int32T(t, s)
					t.AddInt(s("long"), 8, IntSigned, 0, 64)
					t.AddArray(1, 1, 2)
					t.AddArray(2, 1, 2)
					t.AddStruct(false, s("s"), 16, []Member{{Name: s("x"), Type: 3}, {Name: s("y"), Type: 4, BitOffset: 64}})
				},
			},
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] ARRAY '' 1[2] idx=1
[3] STRUCT 's' size=16 { x:2@0 y:2@64 }
[4] INT 'long' size=8 enc=1 off=0 bits=64
[5] ARRAY '' 4[2] idx=1`,
		},
		{
			name: "anonymous struct behind a typedef",
			units: sameUnitTwice(func(t *Types, s func(string) uint32) { // typedef struct { int x; } foo_t;
				int32T(t, s)
				t.AddStruct(false, 0, 4, []Member{{Name: s("x"), Type: 1}})
				t.AddRef(KindTypedef, s("foo_t"), 2)
			}),
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] STRUCT '' size=4 { x:1@0 }
[3] TYPEDEF 'foo_t' ->2`,
		},
		{
			name: "different anonymous structs stay apart",
			units: []unit{
				func(t *Types, s func(string) uint32) {
					int32T(t, s)
					t.AddStruct(false, 0, 4, []Member{{Name: s("x"), Type: 1}})
				},
				func(t *Types, s func(string) uint32) {
					t.AddInt(s("unsigned int"), 4, 0, 0, 32)
					t.AddStruct(false, 0, 4, []Member{{Name: s("x"), Type: 1}})
				},
			},
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] STRUCT '' size=4 { x:1@0 }
[3] INT 'unsigned int' size=4 enc=0 off=0 bits=32
[4] STRUCT '' size=4 { x:3@0 }`,
		},
		{
			name: "bitfields",
			units: sameUnitTwice(func(t *Types, s func(string) uint32) { // struct b { int a:3; int c:5; };
				int32T(t, s)
				t.AddStruct(false, s("b"), 4, []Member{{Name: s("a"), Type: 1, BitfieldSize: 3}, {Name: s("c"), Type: 1, BitOffset: 3, BitfieldSize: 5}})
			}),
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] STRUCT 'b' size=4 { a:1@0:3 c:1@3:5 }`,
		},
		{
			name: "functions, prototypes and their decl tags merge",
			units: sameUnitTwice(func(t *Types, s func(string) uint32) { // void f(int a1, int a2) __tag("t1")
				int32T(t, s)
				t.AddFuncProto(0, []Param{{Name: s("a1"), Type: 1}, {Name: s("a2"), Type: 1}})
				t.AddFunc(s("f"), 2, FuncStatic)
				t.AddDeclTag(s("t1"), 3, -1)
				t.AddDeclTag(s("t1"), 3, 1)
			}),
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] FUNC_PROTO '' ret=0 ( a1:1 a2:1 )
[3] FUNC 'f' ->2
[4] DECL_TAG 't1' ->3 comp=-1
[5] DECL_TAG 't1' ->3 comp=1`,
		},
		{
			name: "decl tags of merged structs accumulate",
			units: []unit{
				func(t *Types, s func(string) uint32) {
					int32T(t, s)
					t.AddStruct(false, s("t"), 4, []Member{{Name: s("m"), Type: 1}})
					t.AddDeclTag(s("tag1"), 2, -1)
				},
				func(t *Types, s func(string) uint32) {
					int32T(t, s)
					t.AddStruct(false, s("t"), 4, []Member{{Name: s("m"), Type: 1}})
					t.AddDeclTag(s("tag1"), 2, -1)
					t.AddDeclTag(s("tag2"), 2, 0)
				},
			},
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] STRUCT 't' size=4 { m:1@0 }
[3] DECL_TAG 'tag1' ->2 comp=-1
[4] DECL_TAG 'tag2' ->2 comp=0`,
		},
		{
			name: "VAR and DATASEC are never merged",
			units: sameUnitTwice(func(t *Types, s func(string) uint32) { // static int t in .bss
				int32T(t, s)
				t.AddVar(s("t"), 1, VarStatic)
				t.AddDatasec(s(".bss"), 4, []VarSecinfo{{Type: 2, Size: 4}})
			}),
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] VAR 't' ->1
[3] DATASEC '.bss' size=4 { 2@0+4 }
[4] VAR 't' ->1
[5] DATASEC '.bss' size=4 { 4@0+4 }`,
		},
		{
			name: "type tags",
			units: []unit{
				func(t *Types, s func(string) uint32) { // int __tag1 __tag2 *
					int32T(t, s)
					t.AddTypeTag(s("tag1"), 1, false)
					t.AddTypeTag(s("tag2"), 2, false)
					t.AddRef(KindPtr, 0, 3)
				},
				func(t *Types, s func(string) uint32) { // int __tag1 * and int __tag1 __tag2 *
					int32T(t, s)
					t.AddTypeTag(s("tag1"), 1, false)
					t.AddRef(KindPtr, 0, 2)
					t.AddTypeTag(s("tag2"), 2, false)
					t.AddRef(KindPtr, 0, 4)
				},
			},
			want: `
[1] INT 'int' size=4 enc=1 off=0 bits=32
[2] TYPE_TAG 'tag1' ->1
[3] TYPE_TAG 'tag2' ->2
[4] PTR '' ->3
[5] PTR '' ->2`,
		},
		{
			name: "recursive typedef through a prototype (Go's type Foo func() Foo)",
			units: sameUnitTwice(func(t *Types, s func(string) uint32) {
				t.AddRef(KindTypedef, s("Foo"), 2)
				t.AddFuncProto(1, nil)
			}),
			want: `
[1] TYPEDEF 'Foo' ->2
[2] FUNC_PROTO '' ret=1 ( )`,
		},
		{
			name: "split: types equal to base types become base ids",
			base: func(t *Types, s func(string) uint32) {
				int32T(t, s)
				t.AddStruct(false, s("foo"), 4, []Member{{Name: s("x"), Type: 1}})
				t.AddRef(KindPtr, 0, 2)
			},
			units: []unit{func(t *Types, s func(string) uint32) {
				int32T(t, s)
				t.AddStruct(false, s("foo"), 4, []Member{{Name: s("x"), Type: 1}})
				t.AddRef(KindPtr, 0, 2)
				t.AddStruct(false, s("bar"), 8, []Member{{Name: s("p"), Type: 3}})
				t.AddFwd(s("foo"), false) // resolves to the base's foo
				t.AddRef(KindPtr, 0, 5)
				t.AddStruct(false, s("baz"), 8, []Member{{Name: s("q"), Type: 6}})
			}},
			want: `
[4] STRUCT 'bar' size=8 { p:3@0 }
[5] STRUCT 'baz' size=8 { q:3@0 }`,
		},
		{
			// The split struct s matches the base's s only if the base's FWD x
			// resolved to the split struct x, which would modify the base
			// (hypot_adjust_canon): s stays, and references to the base's FWD
			// from split types now resolve to the split x.
			name: "split: base FWD is not resolved into split types",
			base: func(t *Types, s func(string) uint32) { // struct x; struct s { struct x *p; };
				t.AddFwd(s("x"), false)
				t.AddRef(KindPtr, 0, 1)
				t.AddStruct(false, s("s"), 8, []Member{{Name: s("p"), Type: 2}})
			},
			units: []unit{func(t *Types, s func(string) uint32) { // struct x {}; struct s { struct x *p; };
				t.AddStruct(false, s("x"), 0, nil)
				t.AddRef(KindPtr, 0, 1)
				t.AddStruct(false, s("s"), 8, []Member{{Name: s("p"), Type: 2}})
			}},
			want: `
[4] STRUCT 'x' size=0 { }
[5] PTR '' ->4
[6] STRUCT 's' size=8 { p:5@0 }`,
		},
	}
}

// selfRef is a unit with struct a { struct a *next; }.
func selfRef(t *Types, s func(string) uint32) {
	t.AddStruct(false, s("a"), 8, []Member{{Name: s("next"), Type: 2}})
	t.AddRef(KindPtr, 0, 1)
}

// TestDedupCases runs the hand-built cases and, when the libbpf oracle is
// available (BTFGATE_LIBBPF_DEDUP), checks them against libbpf too.
func TestDedupCases(t *testing.T) {
	harness := os.Getenv("BTFGATE_LIBBPF_DEDUP")
	for _, c := range dedupCases() {
		t.Run(c.name, func(t *testing.T) {
			in, base := c.build(t)
			out, err := Dedup(in)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.TrimSpace(formatTypes(out)), strings.TrimSpace(c.want); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if harness == "" {
				return
			}
			baseFile := ""
			if base != nil {
				raw, err := base.Marshal(binary.LittleEndian)
				if err != nil {
					t.Fatal(err)
				}
				baseFile = filepath.Join(t.TempDir(), "base.btf")
				if err := os.WriteFile(baseFile, raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			compareWithLibbpf(t, harness, in, baseFile)
		})
	}
}

// TestDedupParsedStrings deduplicates BTF whose string table has duplicate
// and unused strings: as libbpf does for parsed BTF, the result gets a new
// table of the referenced strings in order of first reference.
func TestDedupParsedStrings(t *testing.T) {
	strs := "\x00unused\x00int\x00long int\x00int\x00long int\x00int"
	ty := NewTypes(NewStrings())
	for _, name := range []uint32{8, 12, 21, 25, 34} { // int, long int, int, long int, int
		size := uint32(4)
		if strs[name] == 'l' {
			size = 8
		}
		ty.AddInt(0, size, IntSigned, 0, size*8)
		ty.words[ty.offs[len(ty.offs)-1]] = name
	}
	ty.Strings = &Strings{data: []byte(strs + "\x00")} // as Parse would make it
	raw, err := ty.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Dedup(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "[1] INT 'int' size=4 enc=1 off=0 bits=32\n[2] INT 'long int' size=8 enc=1 off=0 bits=64\n"
	if got := formatTypes(out); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if got := string(out.Strings.data); got != "\x00int\x00long int\x00" {
		t.Errorf("strings %q", got)
	}
	if string(in.Strings.data) != strs+"\x00" {
		t.Errorf("Dedup modified its input's strings")
	}
	if harness := os.Getenv("BTFGATE_LIBBPF_DEDUP"); harness != "" {
		compareWithLibbpf(t, harness, in, "")
	}
}
