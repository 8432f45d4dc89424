package btfdiff

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
)

// everyKind builds one type of each kind, with the flags and fields a
// content key must carry, and returns the blob and each type's expected key.
func everyKind() (*testBTF, map[uint32]string) {
	b := newTestBTF()
	want := map[uint32]string{}
	add := func(key string, k Kind, name string, kflag bool, vlen int, st uint32, extra ...uint32) uint32 {
		id := b.add(k, name, kflag, vlen, st, extra...)
		want[id] = key
		return id
	}
	intT := add("INT int size=4 enc=signed off=0 bits=32", btf.KindInt, "int", false, 0, 4, 1<<24|32)
	add("INT unsigned char size=1 enc=char off=0 bits=8", btf.KindInt, "unsigned char", false, 0, 1, 2<<24|8)
	add("INT _Bool size=1 enc=bool off=0 bits=1", btf.KindInt, "_Bool", false, 0, 1, 4<<24|1)
	add("INT u3 size=4 enc=none off=5 bits=3", btf.KindInt, "u3", false, 0, 4, 5<<16|3)
	ptr := add("PTR -> INT int", btf.KindPtr, "", false, 0, intT)
	add("STRUCT s size=8 bitfields {a: INT int @0:3, b: INT int @3:5, p: PTR -> INT int @32}",
		btf.KindStruct, "s", true, 3, 8,
		b.str("a"), intT, 3<<24, b.str("b"), intT, 5<<24|3, b.str("p"), ptr, 32)
	add("UNION u size=4 {x: INT int @0, INT int @0}", btf.KindUnion, "u", false, 2, 4,
		b.str("x"), intT, 0, 0, intT, 0)
	add("ENUM e size=4 signed {NEG=-1, POS=7}", btf.KindEnum, "e", true, 2, 4,
		b.str("NEG"), 0xffffffff, b.str("POS"), 7)
	add("ENUM ue size=4 unsigned {BIG=4294967295}", btf.KindEnum, "ue", false, 1, 4, b.str("BIG"), 0xffffffff)
	add("ENUM64 e64 size=8 signed {M=-2, H=4294967296}", btf.KindEnum64, "e64", true, 2, 8,
		b.str("M"), 0xfffffffe, 0xffffffff, b.str("H"), 0, 1)
	add("ENUM64 u64 size=8 unsigned {M=18446744073709551614}", btf.KindEnum64, "u64", false, 1, 8,
		b.str("M"), 0xfffffffe, 0xffffffff)
	add("FWD union fu", btf.KindFwd, "fu", true, 0, 0)
	add("FWD struct fs", btf.KindFwd, "fs", false, 0, 0)
	proto := add("FUNC_PROTO(INT int; x: PTR -> INT int, INT int, ...)", btf.KindFuncProto, "", false, 3, intT,
		b.str("x"), ptr, 0, intT, 0, 0)
	fn := add("FUNC f global -> FUNC_PROTO(INT int; x: PTR -> INT int, INT int, ...)", btf.KindFunc, "f", false, 1, proto)
	add("FUNC_PROTO(void)", btf.KindFuncProto, "", false, 0, 0)
	tag := add(`TYPE_TAG attr "user" -> INT int`, btf.KindTypeTag, "user", true, 0, intT)
	add(`DECL_TAG "param \"tag\"" idx=0 -> FUNC f`, btf.KindDeclTag, `param "tag"`, false, 0, fn, 0)
	add(`DECL_TAG attr "whole" idx=-1 -> FUNC f`, btf.KindDeclTag, "whole", true, 0, fn, 0xffffffff)
	v := add(`VAR v static -> TYPE_TAG attr "user" -> INT int`, btf.KindVar, "v", false, 0, tag, 0)
	add("VAR g extern -> INT int", btf.KindVar, "g", false, 0, intT, 2)
	add(".data: DATASEC", btf.KindDatasec, ".data", false, 1, 4, v, 0, 4) // replaced below
	want[b.n] = "DATASEC .data size=4 {VAR v @0 size=4}"
	anon := add("STRUCT size=4 {x: INT int @0}", btf.KindStruct, "", false, 1, 4, b.str("x"), intT, 0)
	add("TYPEDEF t -> STRUCT size=4 {x: INT int @0}", btf.KindTypedef, "t", false, 0, anon)
	add("ARRAY[4](INT int; index INT int)", btf.KindArray, "", false, 0, 0, intT, intT, 4)
	add("FLOAT double size=8", btf.KindFloat, "double", false, 0, 8)
	vol := add("VOLATILE(PTR -> INT int)", btf.KindVolatile, "", false, 0, ptr)
	cst := add("CONST(VOLATILE(PTR -> INT int))", btf.KindConst, "", false, 0, vol)
	add("RESTRICT(CONST(VOLATILE(PTR -> INT int)))", btf.KindRestrict, "", false, 0, cst)
	add("PTR -> void", btf.KindPtr, "", false, 0, 0)
	add(`STRUCT "odd{name" size=0 {}`, btf.KindStruct, "odd{name", false, 0, 0)
	add("STRUCT long unsigned int size=0 {}", btf.KindStruct, "long unsigned int", false, 0, 0)
	add("PTR kflag vlen=2 -> void", btf.KindPtr, "", true, 2, 0)
	return b, want
}

func TestKeyEveryKind(t *testing.T) {
	b, want := everyKind()
	for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		r := testRenderer(t, b.bytes(order, 32))
		for id := uint32(1); id <= b.n; id++ {
			got, fp, err := r.key(btf.TypeID(id))
			if err != nil {
				t.Fatalf("%v: type %d: %v", order, id, err)
			}
			if got != want[id] {
				t.Errorf("%v: type %d:\n got %s\nwant %s", order, id, got, want[id])
			}
			if fp != fingerprintOf([]byte(got)) {
				t.Errorf("type %d: fingerprint does not match key", id)
			}
		}
	}
}

func TestSetIndexesNamedTypes(t *testing.T) {
	b, _ := everyKind()
	s, err := FromBytes("test", b.bytes(binary.LittleEndian, 24), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != int(b.n) {
		t.Errorf("Len = %d, want %d", s.Len(), b.n)
	}
	for _, c := range []struct {
		k    Kind
		name string
		want string
	}{
		{btf.KindFunc, "f", "FUNC f global -> FUNC_PROTO(INT int; x: PTR -> INT int, INT int, ...)"},
		{btf.KindVar, "g", "VAR g extern -> INT int"},
		{btf.KindStruct, "s", "STRUCT s size=8 bitfields {a: INT int @0:3, b: INT int @3:5, p: PTR -> INT int @32}"},
		{btf.KindFwd, "fu", "FWD union fu"},
		{btf.KindDatasec, ".data", "DATASEC .data size=4 {VAR v @0 size=4}"},
		{btf.KindTypedef, "t", "TYPEDEF t -> STRUCT size=4 {x: INT int @0}"},
	} {
		got := s.Lookup(c.k, c.name)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("Lookup(%s, %s) = %q, want [%q]", c.k, c.name, got, c.want)
		}
	}
	if got := s.Lookup(btf.KindStruct, "f"); got != nil {
		t.Errorf("Lookup(STRUCT, f) = %q, want nil: a FUNC is not a STRUCT", got)
	}
	if got := s.Count(btf.KindDeclTag); got != 2 {
		t.Errorf("Count(DECL_TAG) = %d, want 2", got)
	}
	if got := s.Multiplicity("PTR -> INT int"); got != 1 {
		t.Errorf("Multiplicity(PTR -> INT int) = %d, want 1", got)
	}
}

// BTF the kernel refuses on meaning is described, every stray bit in its
// key: reserved bits of the info word and of an INT's word, a FUNC on a
// PTR, a FWD with a type word.
func TestKeyKeepsWhatTheKernelRefuses(t *testing.T) {
	b := newTestBTF()
	want := map[uint32]string{}
	add := func(key string, words ...uint32) {
		b.words = append(b.words, words...)
		b.n++
		want[b.n] = key
	}
	add("PTR info=0x22050000 -> void", 0, uint32(btf.KindPtr)<<24|0x20050000, 0)
	add("FUNC f global -> PTR info=0x22050000 -> void", b.str("f"), uint32(btf.KindFunc)<<24|1, 1)
	add("FWD struct s sizetype=2", b.str("s"), uint32(btf.KindFwd)<<24, 2)
	add("INT i size=4 enc=signed off=0 bits=32 reserved=0x10000100", b.str("i"), uint32(btf.KindInt)<<24, 4, 0x11000120)
	r := testRenderer(t, b.bytes(binary.LittleEndian, 32))
	for id := uint32(1); id <= b.n; id++ {
		if got, _, err := r.key(btf.TypeID(id)); err != nil || got != want[id] {
			t.Errorf("type %d: %q, %v; want %q", id, got, err, want[id])
		}
	}
}

// The same content under other ids and in another order is equal; one
// changed field is not.
func TestCompareIgnoresIDs(t *testing.T) {
	build := func(reverse bool, memberOff uint32) []byte {
		b := newTestBTF()
		var intT, ptr uint32
		if reverse {
			b.add(btf.KindPtr, "", false, 0, 2) // PTR -> int, int is id 2
			intT, ptr = b.add(btf.KindInt, "int", false, 0, 4, 1<<24|32), 1
		} else {
			intT = b.add(btf.KindInt, "int", false, 0, 4, 1<<24|32)
			ptr = b.add(btf.KindPtr, "", false, 0, intT)
		}
		b.add(btf.KindStruct, "s", false, 2, 16, b.str("a"), intT, 0, b.str("p"), ptr, memberOff)
		return b.bytes(binary.LittleEndian, 24)
	}
	a, err := FromBytes("a", build(false, 64), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromBytes("b", build(true, 64), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(a, b); !r.Equal() {
		t.Errorf("same content in another order compares different: only A %v, only B %v", r.OnlyA, r.OnlyB)
	}
	c, err := FromBytes("c", build(true, 96), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(a, c)
	if r.Equal() {
		t.Fatal("a moved member compares equal")
	}
	if len(r.Types.Changed) != 1 || r.Types.Changed[0].Name != "s" {
		t.Fatalf("changed types = %+v, want STRUCT s", r.Types.Changed)
	}
	want := []string{"- p: PTR -> INT int @64", "+ p: PTR -> INT int @96"}
	if got := r.Types.Changed[0].Detail; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("detail = %q, want %q", got, want)
	}
}

func TestKeyCycles(t *testing.T) {
	// 1: PTR -> 2, 2: PTR -> 1 (a cycle no C type can make), 3: PTR -> 3,
	// 4: STRUCT s {PTR -> 1}.
	b := newTestBTF()
	b.add(btf.KindPtr, "", false, 0, 2)
	b.add(btf.KindPtr, "", false, 0, 1)
	b.add(btf.KindPtr, "", false, 0, 3)
	b.add(btf.KindStruct, "s", false, 1, 8, b.str("m"), 1, 0)
	raw := b.bytes(binary.LittleEndian, 24)
	want := map[btf.TypeID]string{
		1: "PTR -> PTR -> <cycle^2>",
		2: "PTR -> PTR -> <cycle^2>",
		3: "PTR -> <cycle^1>",
		4: "STRUCT s size=8 {m: PTR -> PTR -> <cycle^2> @0}",
	}
	// Entering the cycle at either type, in either order, gives the same keys.
	for _, order := range [][]btf.TypeID{{1, 2, 3, 4}, {4, 2, 1, 3}} {
		r := testRenderer(t, raw)
		for _, id := range order {
			got, _, err := r.key(id)
			if err != nil {
				t.Fatal(err)
			}
			if got != want[id] {
				t.Errorf("order %v: type %d = %q, want %q", order, id, got, want[id])
			}
		}
	}
}

func TestKeyLimits(t *testing.T) {
	// Type 1 is the outermost of n qualifiers, so that rendering it walks
	// the whole chain (in the other order each level is cached).
	chain := func(n int) []byte {
		b := newTestBTF()
		for i := 0; i < n; i++ {
			b.add(btf.KindConst, "", false, 0, b.n+2)
		}
		b.add(btf.KindInt, "int", false, 0, 4, 32)
		return b.bytes(binary.LittleEndian, 24)
	}
	if _, err := FromBytes("ok", chain(maxNesting-1), nil); err != nil {
		t.Errorf("%d nested qualifiers: %v", maxNesting-1, err)
	}
	_, err := FromBytes("deep", chain(maxNesting+1), nil)
	if err == nil || !strings.Contains(err.Error(), "nest deeper") {
		t.Errorf("%d nested qualifiers: err = %v, want a nesting error", maxNesting+1, err)
	}

	// Each prototype takes two of the previous one: keys double per level.
	b := newTestBTF()
	b.add(btf.KindInt, "int", false, 0, 4, 32)
	for i := 0; i < 40; i++ {
		p := b.n
		b.add(btf.KindFuncProto, "", false, 2, p, 0, p, 0, p)
	}
	r := testRenderer(t, b.bytes(binary.LittleEndian, 24))
	r.budget = 1 << 20
	err = nil
	for id := btf.TypeID(1); id <= btf.TypeID(b.n) && err == nil; id++ {
		_, _, err = r.key(id)
	}
	if err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Errorf("doubling keys: err = %v, want the budget error", err)
	}
}

// testRenderer returns a renderer for raw base BTF.
func testRenderer(t *testing.T, raw []byte) *renderer {
	t.Helper()
	b, err := parseBlob("test", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newRenderer(b.types, b.size)
}
