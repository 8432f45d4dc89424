package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDataFiles: data_files and AddDataFile read JSON, YAML and plain text
// (issue 18, "Why" 3: --policy list.json was a Rego parse error); lists
// join after the rules file's own, and each entry's place is its file and
// line.
func TestDataFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("deny.txt", "# hidden\nfoo_*\n\n  bar  \n")
	write("lists.json", "{\"keep\": [\"k1\",\n  \"k2\"], \"deny\": [\"j\"]}\n")
	rf := write("r.yaml", "data:\n  deny: [inline]\ndata_files: [deny=deny.txt, lists.json]\n")
	r, err := Load(rf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Data["deny"], []any{"inline", "foo_*", "bar", "j"}; !reflect.DeepEqual(got, want) {
		t.Errorf("deny = %#v, want %#v", got, want)
	}
	if got, want := r.Data["keep"], []any{"k1", "k2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keep = %#v, want %#v", got, want)
	}
	for _, c := range []struct {
		key   string
		index int
		want  string
	}{
		{"deny", 0, rf + ":2"},
		{"deny", 1, filepath.Join(dir, "deny.txt") + ":2"},
		{"deny", 2, filepath.Join(dir, "deny.txt") + ":4"},
		{"deny", 3, filepath.Join(dir, "lists.json") + ":2"},
		{"keep", 1, filepath.Join(dir, "lists.json") + ":2"},
		{"keep", -1, filepath.Join(dir, "lists.json") + ":1"},
	} {
		if got := r.DataPlace(c.key, c.index).String(); got != c.want {
			t.Errorf("DataPlace(%s, %d) = %s, want %s", c.key, c.index, got, c.want)
		}
	}

	for _, c := range []struct{ spec, want string }{
		{write("plain.txt", "a\n"), "plain.txt: a plain text data file needs a key: KEY="},
		{write("bad.json", "{\"deny\": [\"a\",\n ]]}\n"), "bad.json:1: did not find expected"},
		{write("scalar.yaml", "3\n"), "scalar.yaml:1: want a mapping of keys"},
		{"x=" + write("dup.yaml", "deny: [a]\nx: 1\n"), "dup.yaml"},
		{filepath.Join(dir, "missing.json"), "missing.json"},
	} {
		r := &Rules{Data: map[string]any{"x": 2}}
		err := r.AddDataFile(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddDataFile(%s) = %v, want an error with %q", c.spec, err, c.want)
		}
	}
}
