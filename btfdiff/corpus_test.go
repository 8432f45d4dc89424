package btfdiff

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/internal/corpus"
)

// referenceCounts are the per-kind counts of amd64.default.btf that the
// reference's README states.
var referenceCounts = map[Kind]int{
	btf.KindFunc: 43913, btf.KindFuncProto: 23616, btf.KindPtr: 12403, btf.KindStruct: 8721,
	btf.KindArray: 2997, btf.KindConst: 2735, btf.KindEnum: 1849, btf.KindTypedef: 1840,
	btf.KindUnion: 1434, btf.KindVar: 381, btf.KindFwd: 114, btf.KindVolatile: 20, btf.KindInt: 15,
	btf.KindEnum64: 7, btf.KindRestrict: 2, btf.KindFloat: 2, btf.KindDatasec: 1,
}

func TestReferenceEqualsItself(t *testing.T) {
	path := corpus.ReferenceFile(t, "amd64.default.btf")
	a, b := mustLoad(t, path, ""), mustLoad(t, path, "")
	for k := btf.KindInt; k < btf.NumKinds; k++ {
		if got := a.Count(k); got != referenceCounts[k] {
			t.Errorf("Count(%s) = %d, want %d", k, got, referenceCounts[k])
		}
	}
	if a.Len() != 100050 {
		t.Errorf("Len = %d, want 100050", a.Len())
	}
	r := Compare(a, b)
	if !r.Equal() || r.Functions.Len()+r.Variables.Len()+r.Types.Len() != 0 {
		t.Fatalf("reference differs from itself: %d only in A, %d only in B", len(r.OnlyA), len(r.OnlyB))
	}
	for _, c := range []struct {
		k          Kind
		name, want string
	}{
		{btf.KindStruct, "list_head", "STRUCT list_head size=16 {next: PTR -> STRUCT list_head @0, prev: PTR -> STRUCT list_head @64}"},
		{btf.KindFunc, "schedule", "FUNC schedule static -> FUNC_PROTO(void)"},
		{btf.KindTypedef, "u32", "TYPEDEF u32 -> TYPEDEF __u32"},
		{btf.KindInt, "unsigned int", "INT unsigned int size=4 enc=none off=0 bits=32"},
		{btf.KindFunc, "kmalloc_trace", "FUNC kmalloc_trace static -> FUNC_PROTO(PTR -> void; s: PTR -> STRUCT kmem_cache, gfpflags: TYPEDEF gfp_t, size: TYPEDEF size_t)"},
	} {
		if got := a.Lookup(c.k, c.name); len(got) != 1 || got[0] != c.want {
			t.Errorf("Lookup(%s, %s) = %q\nwant [%q]", c.k, c.name, got, c.want)
		}
	}
	percpu := a.Lookup(btf.KindDatasec, ".data..percpu")
	if len(percpu) != 1 || strings.Count(percpu[0], "VAR ") != 381 {
		t.Errorf(".data..percpu should list the 381 VARs: %.200q", percpu)
	}
}

// amd64.all.btf is the same kernel with global_var and true_signature;
// §6.3 of the spec gives what that adds.
func TestGlobalVarAndTrueSignature(t *testing.T) {
	a := mustLoad(t, corpus.ReferenceFile(t, "amd64.default.btf"), "")
	b := mustLoad(t, corpus.ReferenceFile(t, "amd64.all.btf"), "")
	r := Compare(a, b)
	if r.Equal() {
		t.Fatal("default and all compare equal")
	}
	wantDelta := map[Kind]int{btf.KindFunc: 254, btf.KindFuncProto: 180, btf.KindVar: 23328, btf.KindDatasec: 12}
	// 102 plain-named FUNCs are replaced by dotted ones; nothing else in A
	// is missing from B.
	wantOnlyA := map[Kind]int{btf.KindFunc: 102}
	wantOnlyB := map[Kind]int{btf.KindFunc: 356, btf.KindFuncProto: 180, btf.KindVar: 23328, btf.KindDatasec: 12}
	for _, row := range r.Kinds {
		if d := row.B - row.A; d != wantDelta[row.Kind] {
			t.Errorf("%s: B-A = %d, want %d", row.Kind, d, wantDelta[row.Kind])
		}
		if row.OnlyA != wantOnlyA[row.Kind] || row.OnlyB != wantOnlyB[row.Kind] {
			t.Errorf("%s: only A %d, only B %d; want %d, %d", row.Kind, row.OnlyA, row.OnlyB, wantOnlyA[row.Kind], wantOnlyB[row.Kind])
		}
	}

	f := r.Functions
	if len(f.Added) != 356 || len(f.Removed) != 102 || len(f.Changed) != 0 {
		t.Fatalf("functions: %d added, %d removed, %d changed; want 356, 102, 0", len(f.Added), len(f.Removed), len(f.Changed))
	}
	kinds := map[string]int{}
	added := map[string]bool{}
	for _, c := range f.Added {
		added[c.Name] = true
		cp, isra := strings.Contains(c.Name, ".constprop."), strings.Contains(c.Name, ".isra.")
		switch {
		case cp && isra:
			kinds["constprop.isra"]++
		case cp:
			kinds["constprop"]++
		case isra:
			kinds["isra"]++
		default:
			t.Errorf("added function %s has no clone suffix", c.Name)
		}
		if len(c.New) != 1 || !strings.HasPrefix(c.New[0], "FUNC "+c.Name+" static -> FUNC_PROTO(") {
			t.Errorf("added %s: keys %q", c.Name, c.New)
		}
	}
	if kinds["constprop"] != 201 || kinds["isra"] != 145 || kinds["constprop.isra"] != 10 {
		t.Errorf("dotted names: %v, want 201 constprop, 145 isra, 10 constprop.isra (spec §6.3)", kinds)
	}
	for _, c := range f.Removed {
		if !slices.ContainsFunc(f.Added, func(a Change) bool { return strings.HasPrefix(a.Name, c.Name+".") }) {
			t.Errorf("removed %s is not replaced by a dotted name", c.Name)
		}
	}
	for _, name := range []string{"modify_irte.isra.0", "__alloc_pages_slowpath.constprop.0", "ZSTD_execSequenceEnd.isra.0"} {
		if !added[name] {
			t.Errorf("%s not reported as added", name)
		}
	}
	if !slices.ContainsFunc(f.Removed, func(c Change) bool { return c.Name == "__alloc_pages_slowpath" }) {
		t.Error("__alloc_pages_slowpath not reported as removed")
	}

	if v := r.Variables; len(v.Removed) != 0 || len(v.Added) < 20000 {
		t.Errorf("variables: %d added, %d removed", len(v.Added), len(v.Removed))
	}
	var secs []string
	for _, c := range r.Types.Added {
		if c.Kind != btf.KindDatasec {
			t.Errorf("added named type %s %s, want only DATASECs", c.Kind, c.Name)
		}
		secs = append(secs, c.Name)
	}
	if len(secs) != 12 || !slices.Contains(secs, ".bss") || !slices.Contains(secs, ".rodata") {
		t.Errorf("added DATASECs %q, want 12 including .bss and .rodata", secs)
	}
	if len(r.Types.Removed)+len(r.Types.Changed) != 0 {
		t.Errorf("named types removed %v, changed %v; want none", r.Types.Removed, r.Types.Changed)
	}
}

// Debian's own .BTF (pahole 1.24, 24-byte header) read from the corpus
// kernel's ELF file: the same types, an older function selection.
func TestDebianBTF(t *testing.T) {
	a := mustLoad(t, corpus.ReferenceFile(t, "amd64.default.btf"), "")
	b := mustLoad(t, corpus.Vmlinux(t), "")
	if got := b.Count(btf.KindFunc); got != 44611 {
		t.Errorf("Debian .BTF has %d FUNC, want 44611 (spec §6.3)", got)
	}
	r := Compare(a, b)
	for _, row := range r.Kinds {
		switch row.Kind {
		case btf.KindFunc, btf.KindFuncProto, btf.KindVar, btf.KindDatasec:
		default:
			if row.OnlyA+row.OnlyB != 0 {
				t.Errorf("%s differs (%d only in A, %d only in B); only functions and variables should", row.Kind, row.OnlyA, row.OnlyB)
			}
		}
	}
	f := r.Functions
	if len(f.Added) == 0 || len(f.Removed) == 0 || len(f.Changed) == 0 {
		t.Fatalf("functions: %d added, %d removed, %d changed; want some of each", len(f.Added), len(f.Removed), len(f.Changed))
	}
	find := func(l []Change, name string) *Change {
		i := slices.IndexFunc(l, func(c Change) bool { return c.Name == name })
		if i < 0 {
			t.Errorf("%s not listed", name)
			return nil
		}
		return &l[i]
	}
	// pahole 1.31 leaves out this optimized-parameter function.
	find(f.Added, "BIT_initDStream")
	find(f.Removed, "ZSTD_buildFSETable_body_bmi2")
	// pahole 1.24 takes the prototype of a stub whose parameter is unused.
	if c := find(f.Changed, "__ia32_compat_sys_io_setup"); c != nil {
		want := []string{"- regs: PTR -> CONST(STRUCT pt_regs)", "+ __unused: PTR -> CONST(STRUCT pt_regs)"}
		if !slices.Equal(c.Detail, want) {
			t.Errorf("detail %q, want %q", c.Detail, want)
		}
	}
	if v := r.Variables; len(v.Removed) != 1 || v.Removed[0].Name != "fixed_percpu_data" {
		t.Errorf("variables removed: %+v, want fixed_percpu_data", v.Removed)
	}
}

func TestSplitModule(t *testing.T) {
	base := corpus.ReferenceFile(t, "amd64.default.btf")
	path := corpus.ReferenceFile(t, "modules/ext4.default.btf")
	a, b := mustLoad(t, path, base), mustLoad(t, path, base)
	if a.Len() != 2944 || a.Count(btf.KindFunc) != 1193 || a.Count(btf.KindInt) != 0 {
		t.Errorf("ext4: %d types, %d FUNC, %d INT; want 2944, 1193, 0 (base types stay in the base)", a.Len(), a.Count(btf.KindFunc), a.Count(btf.KindInt))
	}
	if r := Compare(a, b); !r.Equal() {
		t.Fatalf("ext4 differs from itself")
	}
	want := "FUNC ext4_fill_super static -> FUNC_PROTO(INT int; sb: PTR -> STRUCT super_block, fc: PTR -> STRUCT fs_context)"
	if got := a.Lookup(btf.KindFunc, "ext4_fill_super"); len(got) != 1 || got[0] != want {
		t.Errorf("ext4_fill_super = %q, want [%q]", got, want)
	}
	if _, err := Load(path, ""); err == nil {
		t.Error("split BTF loaded without its base")
	}

	// Debian's ext4.ko carries split BTF on Debian's vmlinux: other base,
	// other ids, the same types; only the function selection differs.
	d := mustLoad(t, corpus.Module(t, "ext4"), corpus.Vmlinux(t))
	r := Compare(a, d)
	for _, row := range r.Kinds {
		if row.Kind != btf.KindFunc && row.Kind != btf.KindFuncProto && row.OnlyA+row.OnlyB != 0 {
			t.Errorf("ext4.ko vs reference: %s differs", row.Kind)
		}
	}
	if r.Functions.Len() == 0 || r.Types.Len()+r.Variables.Len() != 0 {
		t.Errorf("ext4.ko vs reference: %d function, %d type, %d variable differences; want only functions",
			r.Functions.Len(), r.Types.Len(), r.Variables.Len())
	}
}

// One member offset patched in the raw bytes shows up as that struct's
// change and nothing else: types that point to it name it, so they stay.
func TestMutationIsChange(t *testing.T) {
	path := corpus.ReferenceFile(t, "amd64.default.btf")
	data := readFile(t, path)
	orig, err := FromBytes("orig", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := btf.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listHead []uint32
	for id := tb.FirstID(); id < tb.NextID(); id++ {
		if tb.Kind(id) == btf.KindStruct && tb.Name(id) == "list_head" {
			listHead = tb.Type(id).Words()
		}
	}
	if listHead == nil {
		t.Fatal("no struct list_head")
	}
	// The type's words, found in the little-endian file: its header, then
	// member 0 (next), then member 1 (prev), whose offset word is its third.
	var pattern []byte
	for _, w := range listHead {
		pattern = binary.LittleEndian.AppendUint32(pattern, w)
	}
	at := bytes.Index(data, pattern)
	if at < 0 || bytes.Contains(data[at+1:], pattern) {
		t.Fatalf("list_head's words found at %d, want once", at)
	}
	at += 12 + 12 + 8
	le := binary.LittleEndian
	if got := le.Uint32(data[at:]); got != 64 {
		t.Fatalf("list_head.prev offset reads %d, want 64", got)
	}
	mutated := append([]byte(nil), data...)
	le.PutUint32(mutated[at:], 96)
	m, err := FromBytes("mutated", mutated, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(orig, m)
	if r.Equal() {
		t.Fatal("mutation not detected")
	}
	if len(r.Types.Changed) != 1 || r.Types.Changed[0].Kind != btf.KindStruct || r.Types.Changed[0].Name != "list_head" {
		t.Fatalf("changed types %+v, want STRUCT list_head only", r.Types.Changed)
	}
	want := []string{"- prev: PTR -> STRUCT list_head @64", "+ prev: PTR -> STRUCT list_head @96"}
	if got := r.Types.Changed[0].Detail; !slices.Equal(got, want) {
		t.Errorf("detail %q, want %q", got, want)
	}
	if r.Functions.Len()+r.Variables.Len()+len(r.Types.Added)+len(r.Types.Removed) != 0 || len(r.OnlyA) != 1 || len(r.OnlyB) != 1 {
		t.Errorf("more than list_head differs: %d only in A, %d only in B", len(r.OnlyA), len(r.OnlyB))
	}
}

func TestBigEndianReference(t *testing.T) {
	path := corpus.ReferenceFile(t, "amd64.default.btf")
	le := readFile(t, path)
	be := toBigEndian(t, le)
	if bt, err := btf.Parse(be, nil); err != nil || bt.SourceByteOrder() != binary.BigEndian {
		t.Fatalf("converted blob: %v", err)
	}
	a, err := FromBytes("le", le, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromBytes("be", be, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(a, b); !r.Equal() || b.Len() != a.Len() {
		t.Errorf("big-endian copy differs: %d only in A, %d only in B", len(r.OnlyA), len(r.OnlyB))
	}
}
