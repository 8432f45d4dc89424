package encode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// fixtureDir holds the committed C fixtures (testdata/fixtures/README.md).
const fixtureDir = "../testdata/fixtures"

func fixturePath(t *testing.T, file string) string {
	t.Helper()
	p := filepath.Join(fixtureDir, file)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s is missing (it is committed): %v", file, err)
	}
	return p
}

// encodeNoPanic runs Encode and turns a panic on the calling goroutine
// into an error that carries the stack.
func encodeNoPanic(path string, fs features.Set) (res *Result, err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			res, err, panicked = nil, fmt.Errorf("panic: %v\n%s", r, debug.Stack()), true
		}
	}()
	res, err = Encode(path, Options{Features: fs, Jobs: 2})
	return res, err, false
}

// encodeFixture encodes a fixture that must encode, and checks the result
// is internally consistent (no builder error, marshals).
func encodeFixture(t *testing.T, file string, fs features.Set) *btfView {
	t.Helper()
	res, err, panicked := encodeNoPanic(fixturePath(t, file), fs)
	if panicked {
		t.Fatalf("Encode(%s) panicked: %v", file, err)
	}
	if err != nil {
		t.Fatalf("Encode(%s, %s): %v", file, fs, err)
	}
	if res == nil || res.Types == nil {
		t.Fatalf("Encode(%s) returned no types and no error", file)
	}
	if err := res.Types.Err(); err != nil {
		t.Fatalf("Encode(%s): the types carry a builder error: %v", file, err)
	}
	return &btfView{t: t, ts: res.Types, file: file, res: res}
}

func featuresWithout(t *testing.T, names ...string) features.Set {
	t.Helper()
	fs := features.Default()
	for _, n := range names {
		switch n {
		case "float":
			fs.Float = false
		case "enum64":
			fs.Enum64 = false
		case "type_tag":
			fs.TypeTag = false
		case "decl_tag":
			fs.DeclTag = false
		default:
			t.Fatalf("featuresWithout: unknown feature %q", n)
		}
	}
	return fs
}

// btfView answers questions about one encoded BTF by type name, and
// describes types as short strings such as
//
//	PTR > TYPE_TAG tag2 > TYPE_TAG tag1 > INT int
//	ARRAY[12] of INT int
//	FUNC_PROTO(INT int, ...) INT int
//
// Named STRUCT, UNION, ENUM, ENUM64, FWD, TYPEDEF, INT and FLOAT types are
// written as KIND name and not expanded; anonymous ones as KIND (anon).
type btfView struct {
	t    *testing.T
	ts   *btf.Types
	file string
	res  *Result
}

func (v *btfView) ids() []btf.TypeID {
	var ids []btf.TypeID
	for id := v.ts.FirstID(); id < v.ts.NextID(); id++ {
		ids = append(ids, id)
	}
	return ids
}

func (v *btfView) name(id btf.TypeID) string { return v.ts.Name(id) }

func (v *btfView) str(off uint32) string { return v.ts.Strings.String(off) }

// idsByName returns the ids of every type of kind k named name.
func idsByName(ts *btf.Types, k btf.Kind, name string) []btf.TypeID {
	var ids []btf.TypeID
	for id := ts.FirstID(); id < ts.NextID(); id++ {
		if ts.Kind(id) == k && ts.Name(id) == name {
			ids = append(ids, id)
		}
	}
	return ids
}

// one returns the only type of kind k named name, failing the test if
// there is none or more than one.
func (v *btfView) one(k btf.Kind, name string) btf.Type {
	v.t.Helper()
	ids := idsByName(v.ts, k, name)
	if len(ids) != 1 {
		v.t.Fatalf("%s: %d %s types named %q, want exactly 1 (kinds named %q: %s)",
			v.file, len(ids), k, name, name, v.kindsNamed(name))
	}
	return v.ts.Type(ids[0])
}

// kindsNamed lists the kinds of all types called name, for messages.
func (v *btfView) kindsNamed(name string) string {
	var ks []string
	for _, id := range v.ids() {
		if v.name(id) == name {
			ks = append(ks, fmt.Sprintf("[%d] %s", id, v.ts.Kind(id)))
		}
	}
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

func (v *btfView) count(k btf.Kind) int { return countKind(v.ts, k) }

// ref describes type id as it is seen from a reference to it.
func (v *btfView) ref(id btf.TypeID) string { return v.describe(id, false, 0) }

// chain describes type id and follows typedefs too.
func (v *btfView) chain(id btf.TypeID) string { return v.describe(id, true, 0) }

func (v *btfView) describe(id btf.TypeID, throughTypedefs bool, depth int) string {
	if id == 0 {
		return "void"
	}
	if depth > 32 {
		return "..."
	}
	typ := v.ts.Type(id)
	k := typ.Kind()
	name := v.name(id)
	next := func(to btf.TypeID) string { return v.describe(to, throughTypedefs, depth+1) }
	switch k {
	case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict:
		return k.String() + " > " + next(typ.Ref())
	case btf.KindTypeTag:
		return "TYPE_TAG " + name + " > " + next(typ.Ref())
	case btf.KindTypedef:
		if throughTypedefs {
			return "TYPEDEF " + name + " > " + next(typ.Ref())
		}
	case btf.KindArray:
		elem, _, n := typ.Array()
		return fmt.Sprintf("ARRAY[%d] of %s", n, next(elem))
	case btf.KindFuncProto:
		var ps []string
		for i := 0; i < typ.Vlen(); i++ {
			p := typ.Param(i)
			if p.Type == 0 && p.Name == 0 && i == typ.Vlen()-1 {
				ps = append(ps, "...")
				continue
			}
			s := next(p.Type)
			if p.Name != 0 {
				s = v.str(p.Name) + " " + s
			}
			ps = append(ps, s)
		}
		return "FUNC_PROTO(" + strings.Join(ps, ", ") + ") " + next(typ.Ref())
	case btf.KindFunc:
		return "FUNC " + name
	case btf.KindVoid:
		return fmt.Sprintf("<bad id %d>", id)
	}
	if name == "" {
		name = "(anon)"
	}
	return k.String() + " " + name
}

// descriptions returns the multiset of ref(id) over all types.
func (v *btfView) descriptions() map[string]int {
	m := map[string]int{}
	for _, id := range v.ids() {
		m[v.ref(id)]++
	}
	return m
}

// reference is one type id stored in type from: its referenced type, a
// member or parameter type, an array's element or index type.
type reference struct {
	from, to btf.TypeID
	how      string
}

// references lists every type reference in the BTF.
func (v *btfView) references() []reference {
	var refs []reference
	for _, id := range v.ids() {
		typ := v.ts.Type(id)
		add := func(to btf.TypeID, how string) { refs = append(refs, reference{id, to, how}) }
		switch typ.Kind() {
		case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef,
			btf.KindTypeTag, btf.KindFunc, btf.KindVar, btf.KindDeclTag:
			add(typ.Ref(), "type")
		case btf.KindFuncProto:
			add(typ.Ref(), "return type")
			for i := 0; i < typ.Vlen(); i++ {
				add(typ.Param(i).Type, fmt.Sprintf("parameter %d", i))
			}
		case btf.KindStruct, btf.KindUnion:
			for i := 0; i < typ.Vlen(); i++ {
				add(typ.Member(i).Type, fmt.Sprintf("member %d", i))
			}
		case btf.KindArray:
			elem, index, _ := typ.Array()
			add(elem, "element type")
			add(index, "index type")
		case btf.KindDatasec:
			for i := 0; i < typ.Vlen(); i++ {
				add(typ.Secinfo(i).Type, fmt.Sprintf("entry %d", i))
			}
		}
	}
	return refs
}

// member is one STRUCT/UNION member as a test writes it: "name TYPE@off"
// or "name TYPE@off:bits" for bitfields; anonymous members are "(anon)".
func (v *btfView) members(typ btf.Type) []string {
	var ms []string
	for i := 0; i < typ.Vlen(); i++ {
		m := typ.Member(i)
		name := v.str(m.Name)
		if name == "" {
			name = "(anon)"
		}
		s := fmt.Sprintf("%s %s@%d", name, v.ref(m.Type), m.BitOffset)
		if m.BitfieldSize != 0 {
			s += ":" + strconv.Itoa(int(m.BitfieldSize))
		}
		ms = append(ms, s)
	}
	return ms
}

// enumValues returns an ENUM/ENUM64's enumerators as "NAME=value".
func (v *btfView) enumValues(typ btf.Type) []string {
	var vs []string
	for i := 0; i < typ.Vlen(); i++ {
		e := typ.EnumValue(i)
		val := strconv.FormatInt(e.Value, 10)
		if typ.Kind() == btf.KindEnum64 && !typ.KindFlag() {
			val = strconv.FormatUint(uint64(e.Value), 10)
		}
		vs = append(vs, v.str(e.Name)+"="+val)
	}
	return vs
}

// funcNames returns the FUNC names in id order.
func (v *btfView) funcNames() []string {
	var names []string
	for _, id := range v.ids() {
		if v.ts.Kind(id) == btf.KindFunc {
			names = append(names, v.name(id))
		}
	}
	return names
}

func (v *btfView) raw() []byte {
	v.t.Helper()
	raw, err := v.ts.Marshal(binary.LittleEndian)
	if err != nil {
		v.t.Fatalf("%s: Marshal: %v", v.file, err)
	}
	return raw
}

func eqStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func listDiff(got, want []string) string {
	return "\n  got:  " + strings.Join(got, "\n        ") + "\n  want: " + strings.Join(want, "\n        ")
}

// needBpftool returns bpftool's path or skips the test.
func needBpftool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skipf("bpftool is not installed (apt-get install bpftool): %v", err)
	}
	return p
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// bpftoolDump writes raw to a file and returns `bpftool btf dump file`.
func bpftoolDump(t *testing.T, bpftool string, raw []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "out.btf")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bpftool, "btf", "dump", "file", f).Output()
	if err != nil {
		t.Fatalf("bpftool btf dump file %s: %v\n%s", f, err, stderrOf(err))
	}
	return string(out)
}

// dumpType is one entry of a bpftool dump: "[id] KIND 'name' rest" plus
// its indented member, value or parameter lines.
type dumpType struct {
	kind, name string
	lines      []string // header without "[id] ", then the indented lines
}

var (
	dumpHeader = regexp.MustCompile(`^\[([0-9]+)\] ([A-Z_0-9]+) '([^']*)'(.*)$`)
	dumpRef    = regexp.MustCompile(`\b(type_id|ret_type_id|index_type_id)=([0-9]+)`)
)

func parseDump(t *testing.T, what, text string) map[int]*dumpType {
	t.Helper()
	types := map[int]*dumpType{}
	var cur *dumpType
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		if m := dumpHeader.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			cur = &dumpType{kind: m[2], name: m[3], lines: []string{m[2] + " '" + m[3] + "'" + m[4]}}
			types[id] = cur
			continue
		}
		if cur == nil || !strings.HasPrefix(line, "\t") {
			t.Fatalf("%s: unexpected bpftool line %q", what, line)
		}
		cur.lines = append(cur.lines, line)
	}
	if len(types) == 0 {
		t.Fatalf("%s: no types in the dump", what)
	}
	return types
}

// normalisedDump returns the dump's types as a multiset of id-free
// strings: every type reference is replaced by the referenced type, written
// as KIND 'name' for named non-reference kinds and expanded otherwise.
// FUNCs, DECL_TAGs on FUNCs and FUNC_PROTOs that only FUNCs use are left
// out: function selection and order are not part of the type mapping.
func normalisedDump(types map[int]*dumpType) map[string]int {
	named := map[string]bool{"INT": true, "FLOAT": true, "STRUCT": true, "UNION": true, "ENUM": true,
		"ENUM64": true, "FWD": true, "TYPEDEF": true, "FUNC": true}
	var key func(id, depth int) string
	full := func(id, depth int) string {
		d := types[id]
		var b strings.Builder
		for i, l := range d.lines {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(dumpRef.ReplaceAllStringFunc(l, func(s string) string {
				m := dumpRef.FindStringSubmatch(s)
				n, _ := strconv.Atoi(m[2])
				return m[1] + "={" + key(n, depth+1) + "}"
			}))
		}
		return b.String()
	}
	key = func(id, depth int) string {
		if id == 0 {
			return "void"
		}
		d, ok := types[id]
		switch {
		case !ok:
			return fmt.Sprintf("<missing %d>", id)
		case depth > 32:
			return "..."
		case named[d.kind] && d.name != "(anon)":
			return d.kind + " '" + d.name + "'"
		}
		return full(id, depth)
	}

	usedByTypes := map[int]bool{}
	for _, d := range types {
		if d.kind == "FUNC" || d.kind == "DECL_TAG" {
			continue
		}
		for _, l := range d.lines {
			for _, m := range dumpRef.FindAllStringSubmatch(l, -1) {
				n, _ := strconv.Atoi(m[2])
				usedByTypes[n] = true
			}
		}
	}
	set := map[string]int{}
	for id, d := range types {
		switch d.kind {
		case "FUNC":
			continue
		case "FUNC_PROTO":
			if !usedByTypes[id] {
				continue
			}
		case "DECL_TAG":
			if m := dumpRef.FindStringSubmatch(d.lines[0]); m != nil {
				n, _ := strconv.Atoi(m[2])
				if t, ok := types[n]; ok && t.kind == "FUNC" {
					continue
				}
			}
		}
		set[full(id, 0)]++
	}
	return set
}

// multisetDiff lists what is only in a and only in b.
func multisetDiff(a, b map[string]int) (onlyA, onlyB []string) {
	for k, n := range a {
		for i := b[k]; i < n; i++ {
			onlyA = append(onlyA, k)
		}
	}
	for k, n := range b {
		for i := a[k]; i < n; i++ {
			onlyB = append(onlyB, k)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

// referenceBase returns pahole's kernel BTF from the reference files,
// parsed and raw, for split-BTF tests; it skips without ../shared.
func referenceBase(t *testing.T) (*btf.Types, []byte) {
	t.Helper()
	path := corpus.ReferenceFile(t, "amd64.default.btf")
	base, err := LoadBase(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return base, raw
}
