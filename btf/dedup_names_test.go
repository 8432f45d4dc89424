package btf

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// namesBase is a base whose struct and union names resolve a module's
// FWDs in each way: struct a alone, two structs b, union u.
func namesBase(t *testing.T) []byte {
	t.Helper()
	ty := NewTypes(NewStrings())
	s := ty.Strings.Add
	i := ty.AddInt(s("int"), 4, IntSigned, 0, 32)
	ty.AddStruct(false, s("a"), 4, []Member{{Name: s("x"), Type: i}})
	ty.AddStruct(false, s("b"), 4, []Member{{Name: s("x"), Type: i}})
	ty.AddStruct(false, s("b"), 8, []Member{{Name: s("x"), Type: i}, {Name: s("y"), Type: i, BitOffset: 32}})
	ty.AddStruct(true, s("u"), 4, []Member{{Name: s("x"), Type: i}})
	raw, err := ty.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// fwdTargets dedups, on base, a module of pointers to FWDs (struct a, b,
// union u, struct u, struct c, with a struct c of its own) and returns
// what each pointer points to after the dedup, as kind and name.
func fwdTargets(t *testing.T, base *Types) ([]string, []byte) {
	t.Helper()
	split := NewSplitTypes(base)
	s := split.Strings.Add
	for _, f := range []struct {
		name  string
		union bool
	}{{"a", false}, {"b", false}, {"u", true}, {"u", false}, {"c", false}} {
		split.AddRef(KindPtr, 0, split.AddFwd(s(f.name), f.union))
	}
	split.AddStruct(false, s("c"), 4, []Member{{Name: s("x"), Type: 1}})
	out, err := Dedup(split)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := out.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for id := out.FirstID(); id < out.NextID(); id++ {
		if out.Kind(id) == KindPtr {
			to := out.Type(id).Ref()
			got = append(got, out.Kind(to).String()+" "+out.Name(to))
		}
	}
	return got, raw
}

// TestResolveFwdsPreparedNames: the FWDs of a module are resolved alike on
// a base parsed (the names counted from its types) and on its prepared
// form (from the snapshot's index); an index that says otherwise is
// followed when it is sound and ignored when it is not.
func TestResolveFwdsPreparedNames(t *testing.T) {
	raw := namesBase(t)
	parsed, data := prepare(t, raw)
	want, wantRaw := fwdTargets(t, parsed)
	if exp := []string{"STRUCT a", "FWD b", "UNION u", "FWD u", "STRUCT c"}; !slices.Equal(want, exp) {
		t.Fatalf("on the parsed base the pointers point to %q, want %q", want, exp)
	}
	loaded, err := LoadPrepared(data, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.dedupPrep == nil {
		t.Fatal("the prepared base carries no snapshot")
	}
	if got, gotRaw := fwdTargets(t, loaded); !bytes.Equal(gotRaw, wantRaw) {
		t.Errorf("on the prepared base the pointers point to %q, want %q", got, want)
	}

	// The index ends the snapshot: its count, 3 names, 3 ids (a, b, u).
	l, err := preparedLayoutOf(data[:preparedHeader], uint64(len(data)), uint64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	end := int(preparedHeader + l.snapLen)
	le := binary.LittleEndian
	if n := le.Uint64(data[end-24-8:]); n != 3 {
		t.Fatalf("the snapshot ends with a count of %d names, want 3", n)
	}
	idOfA := end - 12
	if le.Uint32(data[idOfA:]) != 2 {
		t.Fatalf("the index gives struct a id %d, want 2", le.Uint32(data[idOfA:]))
	}
	for _, c := range []struct {
		id   uint32
		want string
	}{
		{0, "FWD a"},    // sound: a read as shared by several
		{1, "STRUCT a"}, // the int: not sound, the base's types are read
		{3, "STRUCT a"}, // a struct b: not sound
		{99, "STRUCT a"},
	} {
		bad := bytes.Clone(data)
		le.PutUint32(bad[idOfA:], c.id)
		base, err := LoadPreparedTrusted(bad, bytes.NewReader(bad), int64(len(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := fwdTargets(t, base); got[0] != c.want {
			t.Errorf("index id %d for struct a: the pointer points to %q, want %q", c.id, got[0], c.want)
		}
	}
}
