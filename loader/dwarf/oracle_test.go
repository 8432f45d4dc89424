package dwarf

import (
	"bytes"
	stddwarf "debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"testing"
)

// stdClass maps a class of stdlib debug/dwarf to ours. Stdlib reports
// section offsets of unknown use as ClassUnknown, we as ClassSecOffset.
var stdClass = map[stddwarf.Class]Class{
	stddwarf.ClassAddress:       ClassAddress,
	stddwarf.ClassBlock:         ClassBlock,
	stddwarf.ClassConstant:      ClassConstant,
	stddwarf.ClassExprLoc:       ClassExprLoc,
	stddwarf.ClassFlag:          ClassFlag,
	stddwarf.ClassLinePtr:       ClassLinePtr,
	stddwarf.ClassLocListPtr:    ClassLocList,
	stddwarf.ClassMacPtr:        ClassMacPtr,
	stddwarf.ClassRangeListPtr:  ClassRngList,
	stddwarf.ClassReference:     ClassReference,
	stddwarf.ClassReferenceSig:  ClassReferenceSig,
	stddwarf.ClassString:        ClassString,
	stddwarf.ClassReferenceAlt:  ClassReferenceAlt,
	stddwarf.ClassStringAlt:     ClassStringAlt,
	stddwarf.ClassAddrPtr:       ClassAddrPtr,
	stddwarf.ClassLocList:       ClassLocList,
	stddwarf.ClassRngList:       ClassRngList,
	stddwarf.ClassRngListsPtr:   ClassRngListsPtr,
	stddwarf.ClassStrOffsetsPtr: ClassStrOffsetsPtr,
	stddwarf.ClassUnknown:       ClassSecOffset,
}

// oracle compares our decoding of whole units with stdlib debug/dwarf.
type oracle struct {
	t    testing.TB
	d    *Data
	s    Sections
	std  *stddwarf.Data
	r    *Reader
	sr   *stddwarf.Reader
	e    Entry
	dies int
	// forms counts the forms seen, to check the coverage of a test input.
	forms map[Form]int
}

func newOracle(t testing.TB, path string, s Sections) *oracle {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	std, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	d := mustNew(t, s)
	return &oracle{t: t, d: d, s: s, std: std, r: d.NewReader(), sr: std.Reader(), forms: map[Form]int{}}
}

// unit walks unit u with both readers in lockstep and fails the test at the
// first difference.
func (o *oracle) unit(u *Unit) {
	t := o.t
	if err := o.r.Seek(u); err != nil {
		t.Fatalf("unit %d: Seek: %v", u.Index, err)
	}
	o.sr.Seek(stddwarf.Offset(u.DataOffset))
	for o.r.Next(&o.e) {
		o.dies++
		se, err := o.sr.Next()
		if err != nil {
			t.Fatalf("unit %d: stdlib at 0x%x: %v", u.Index, o.e.Offset, err)
		}
		if se == nil {
			t.Fatalf("unit %d: stdlib ended before 0x%x", u.Index, o.e.Offset)
		}
		if msg := o.entry(u, &o.e, se); msg != "" {
			t.Fatalf("unit %d, DIE 0x%x (%v): %s", u.Index, o.e.Offset, o.e.Tag, msg)
		}
	}
	if err := o.r.Err(); err != nil {
		t.Fatalf("unit %d: %v", u.Index, err)
	}
	// Stdlib must have reached the end of the unit too.
	if se, err := o.sr.Next(); err == nil && se != nil && uint64(se.Offset) < u.End && se.Tag != 0 {
		t.Fatalf("unit %d: we stopped at 0x%x, stdlib has %v at 0x%x", u.Index, o.r.Offset(), se.Tag, se.Offset)
	}
}

func (o *oracle) entry(u *Unit, e *Entry, se *stddwarf.Entry) string {
	if e.Tag == 0 {
		if se.Tag != 0 {
			return fmt.Sprintf("null entry, stdlib has %v", se.Tag)
		}
		return ""
	}
	if uint64(se.Offset) != e.Offset {
		return fmt.Sprintf("offset: stdlib 0x%x", se.Offset)
	}
	if uint32(se.Tag) != uint32(e.Tag) || se.Children != e.Children {
		return fmt.Sprintf("tag/children %v/%v, stdlib %v/%v", e.Tag, e.Children, se.Tag, se.Children)
	}
	if len(se.Field) != len(e.Fields) {
		return fmt.Sprintf("%d fields, stdlib %d", len(e.Fields), len(se.Field))
	}
	for i := range e.Fields {
		f, sf := &e.Fields[i], &se.Field[i]
		o.forms[f.Form]++
		if uint32(f.Attr) != uint32(sf.Attr) {
			return fmt.Sprintf("field %d: attr %v, stdlib %v", i, f.Attr, sf.Attr)
		}
		want, ok := stdClass[sf.Class]
		switch {
		case f.Attr == AttrLoclistsBase && sf.Class == stddwarf.ClassLocListPtr:
			// Stdlib files DW_AT_loclists_base under the location list
			// pointers; it points at the .debug_loclists offsets array.
			want = ClassLocListsPtr
		case u.Version < 4 && want != ClassConstant && (f.Form == FormData1 || f.Form == FormData2 || f.Form == FormSdata || f.Form == FormUdata):
			// Stdlib promotes every DWARF 2/3 constant of a pointer
			// attribute to a section offset; only data4 and data8 were
			// (DWARF 3 section 7.5.4): data1 DW_AT_data_member_location is
			// a plain offset.
			want = ClassConstant
		}
		if !ok || want != f.Class {
			return fmt.Sprintf("%v: class %v, stdlib %v", f.Attr, f.Class, sf.Class)
		}
		if msg := o.value(u, f, sf.Val); msg != "" {
			return fmt.Sprintf("%v (%v): %s", f.Attr, f.Form, msg)
		}
	}
	return ""
}

// value compares our decoded value with stdlib's representation of it.
func (o *oracle) value(u *Unit, f *Field, sv any) string {
	var ok bool
	switch v := sv.(type) {
	case int64:
		ok = int64(f.Val) == v
		if f.Form == FormSdata || f.Form == FormImplicitConst {
			ok = ok && f.Signed
		}
	case uint64:
		switch f.Form {
		case FormLoclistx:
			// Stdlib keeps the index; we resolve it through the offsets
			// array that follows the .debug_loclists header.
			want := u.LocListsBase + uint64(binary.LittleEndian.Uint32(o.s.LocLists[u.LocListsBase+4*v:]))
			ok = f.Val == want
		default:
			ok = f.Val == v
		}
	case uint32:
		ok = f.Val == uint64(v)
	case bool:
		ok = (f.Val == 1) == v && f.Val <= 1
	case stddwarf.Offset:
		ok = f.Val == uint64(v)
	case string:
		ok = f.Str() == v && f.Bytes != nil || v == "" && len(f.Bytes) == 0
	case []byte:
		ok = bytes.Equal(f.Bytes, v)
	default:
		return fmt.Sprintf("unexpected stdlib value type %T", sv)
	}
	if !ok {
		return fmt.Sprintf("value %#x %q, stdlib %#v", f.Val, f.Bytes, sv)
	}
	return ""
}

// TestOracleVmlinux compares every 40th unit of the corpus kernel, its
// three biggest units and its last unit with stdlib, entry by entry and
// field by field (every unit with BTFGATE_FULL_ORACLE=1).
func TestOracleVmlinux(t *testing.T) {
	path, s := vmlinux(t)
	o := newOracle(t, path, s)
	units, err := o.d.Units()
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 2352 {
		t.Errorf("%d units, want 2352", len(units))
	}
	pick := map[int]bool{}
	for i := 0; i < len(units); i += 40 {
		pick[i] = true
	}
	bySize := make([]int, len(units))
	for i := range bySize {
		bySize[i] = i
	}
	slices.SortFunc(bySize, func(a, b int) int {
		return int(units[b].End-units[b].Offset) - int(units[a].End-units[a].Offset)
	})
	for _, i := range bySize[:3] {
		pick[i] = true
	}
	pick[len(units)-1] = true
	if os.Getenv("BTFGATE_FULL_ORACLE") != "" {
		// Every unit: about a minute.
		for i := range units {
			pick[i] = true
		}
	}
	var idx []int
	for i := range pick {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		o.unit(&units[i])
	}
	t.Logf("compared %d DIEs in %d units; forms: %v", o.dies, len(idx), o.forms)
	for _, f := range []Form{FormStrp, FormLineStrp, FormRef4, FormSecOffset, FormExprloc, FormFlagPresent, FormImplicitConst, FormData1, FormData2, FormData4, FormData8, FormSdata, FormUdata, FormAddr, FormString} {
		if o.forms[f] == 0 {
			t.Errorf("form %v never seen in the sample", f)
		}
	}
}

// testSource exercises many DWARF constructs: bitfields, unions, enums
// with negative values, function pointers, qualifiers, TLS, statics,
// 128-bit and complex types, inlining, variadic functions, and optimized
// code whose parameters have location lists.
const testSource = `
#include <stdarg.h>
typedef unsigned long u64;
enum color { RED, GREEN = 5, BLUE = -3 };
struct bits { unsigned a:3, b:5; signed c:7; u64 d; char name[16]; struct bits *next; };
union u { int i; float f; double d; char c[8]; };
typedef int (*cb_t)(const char *restrict, ...);
struct ops { cb_t cb; void (*fn[4])(void); volatile int v; const struct ops *self; _Atomic int at; };
struct ops global_ops;
__thread int tls_var = 3;
static int counter;
long long big[3][4] = {{1}};
_Bool flag_var = 1;
__int128 wide;
_Complex double cplx;

static inline int sq(int x) { return x * x; }

__attribute__((noinline)) int sum(int n, ...) {
	va_list ap; int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++) s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) long work(struct bits *b, long x, int y) {
	long acc = 0;
	for (int i = 0; i < y; i++) {
		acc += sq(i) * x;
		if (b && b->next) b = b->next;
		counter++;
	}
	if (b) acc += b->d + b->c;
	return acc + sum(3, 1, 2, y);
}

int use(union u *p, enum color c) {
	static int calls;
	calls++;
	struct { int q; } anon = { c };
	return p->i + anon.q + global_ops.v + tls_var + (int)wide + calls + work(0, p->i, c);
}
`

// compilerConfigs are the compilers and flags the small-object tests use.
var compilerConfigs = []struct {
	cc    string
	flags []string
}{
	{"gcc", []string{"-gdwarf-2", "-O2"}},
	{"gcc", []string{"-gdwarf-3", "-O0"}},
	{"gcc", []string{"-gdwarf-4", "-O0"}},
	{"gcc", []string{"-gdwarf-4", "-O2"}},
	{"gcc", []string{"-gdwarf-5", "-O0"}},
	{"gcc", []string{"-gdwarf-5", "-O2"}},
	{"gcc", []string{"-gdwarf-5", "-gdwarf64", "-O2"}},
	{"gcc", []string{"-gdwarf-5", "-O2", "-fdebug-types-section"}},
	{"gcc", []string{"-gdwarf-5", "-O2", "-gsplit-dwarf"}},
	{"clang", []string{"-gdwarf-4", "-O2"}},
	{"clang", []string{"-gdwarf-5", "-O0"}},
	{"clang", []string{"-gdwarf-5", "-O2"}},
	{"clang", []string{"-gdwarf-5", "-gdwarf64", "-O2"}},
	{"clang", []string{"-gdwarf-5", "-O2", "-gsplit-dwarf"}},
}

// TestOracleCompiled compares whole small objects built by gcc and clang
// with several DWARF versions and options against stdlib.
func TestOracleCompiled(t *testing.T) {
	for _, c := range compilerConfigs {
		t.Run(fmt.Sprint(c.cc, c.flags), func(t *testing.T) {
			if c.cc == "clang" && slices.Contains(c.flags, "-gdwarf64") {
				// clang 14 writes a DWARF32 .debug_str_offsets header in
				// DWARF64 objects, which stdlib rejects; TestDumpCompiled
				// checks this one against llvm-dwarfdump.
				t.Skip("stdlib cannot read clang's DWARF64 string offsets")
			}
			path := compile(t, c.cc, testSource, c.flags...)
			s := sectionsOf(t, path)
			o := newOracle(t, path, s)
			units, err := o.d.Units()
			if err != nil {
				t.Fatal(err)
			}
			if len(units) == 0 {
				t.Fatal("no units")
			}
			for i := range units {
				o.unit(&units[i])
			}
			t.Logf("%d units, %d DIEs, forms %v", len(units), o.dies, o.forms)
		})
	}
}
