package btfdiff

import (
	"slices"
	"testing"
)

func TestSplitKey(t *testing.T) {
	for _, c := range []struct {
		key, head string
		items     []string
	}{
		{"STRUCT s size=8 {a: INT int @0, b: ARRAY[2](INT int; index INT int) @32}",
			"STRUCT s size=8 {…}", []string{"a: INT int @0", "b: ARRAY[2](INT int; index INT int) @32"}},
		{"FUNC f static -> FUNC_PROTO(INT int; x: PTR -> STRUCT size=4 {a: INT int @0, b: INT int @16}, ...)",
			"FUNC f static -> FUNC_PROTO(…)", []string{"return: INT int", "x: PTR -> STRUCT size=4 {a: INT int @0, b: INT int @16}", "..."}},
		{"FUNC g static -> FUNC_PROTO(void)", "FUNC g static -> FUNC_PROTO(…)", []string{"return: void"}},
		{`ENUM e size=4 unsigned {"a, b"=1, C=2}`, "ENUM e size=4 unsigned {…}", []string{`"a, b"=1`, "C=2"}},
		{"TYPEDEF t -> ARRAY[4](INT int; index INT int)", "TYPEDEF t -> ARRAY[4](…)", []string{"INT int", "index INT int"}},
		{"STRUCT e size=0 {}", "STRUCT e size=0 {…}", nil},
	} {
		head, items, ok := splitKey(c.key)
		if !ok || head != c.head || !slices.Equal(items, c.items) {
			t.Errorf("splitKey(%q) = %q, %q, %v\nwant %q, %q", c.key, head, items, ok, c.head, c.items)
		}
	}
	if _, _, ok := splitKey("VAR v static -> INT int"); ok {
		t.Error("a key without a list split")
	}
}

func TestKeyDetail(t *testing.T) {
	got := keyDetail("STRUCT s size=8 {a: INT int @0, b: INT int @32}", "STRUCT s size=16 {a: INT int @0, c: INT int @32, b: INT int @64}")
	want := []string{
		"- STRUCT s size=8 {…}", "+ STRUCT s size=16 {…}",
		"- b: INT int @32", "+ c: INT int @32", "+ b: INT int @64",
	}
	if !slices.Equal(got, want) {
		t.Errorf("keyDetail = %q\nwant %q", got, want)
	}
	got = keyDetail("VAR v static -> INT int", "VAR v global -> INT int")
	want = []string{"- VAR v static -> INT int", "+ VAR v global -> INT int"}
	if !slices.Equal(got, want) {
		t.Errorf("keyDetail = %q, want %q", got, want)
	}
}
