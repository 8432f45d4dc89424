package facts

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// docTypeName is how docs/policies.md writes a field's kind.
func docTypeName(f Field) string {
	switch f.Kind {
	case Bool:
		return "bool"
	case Int, Uint:
		return "number"
	case String:
		return "string"
	case Strings:
		return "[string]"
	case Ints:
		return "[number]"
	case List:
		return "[" + f.Elem.Name() + "]"
	case Object:
		return f.Elem.Name()
	case Nullable:
		return f.Elem.Name() + " or null"
	}
	return "?"
}

// TestPoliciesDocTablesMatchTheStructs: docs/policies.md has one table per
// subject type (a "### TYPE" heading), and its rows name exactly the
// type's facts, with their kinds.
func TestPoliciesDocTablesMatchTheStructs(t *testing.T) {
	f, err := os.Open("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	subjects, err := Subjects(reflect.TypeFor[Function](), reflect.TypeFor[Variable]())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]reflect.Type{}
	for _, s := range subjects {
		byName[s.Name()] = s
	}
	heading := regexp.MustCompile(`^### (\w+)`)
	name := regexp.MustCompile("`([a-z_0-9]+)`")
	documented := map[reflect.Type]map[string]string{}
	var cur reflect.Type
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if m := heading.FindStringSubmatch(l); m != nil {
			cur = byName[m[1]]
			continue
		}
		if strings.HasPrefix(l, "## ") {
			cur = nil
		}
		if cur == nil || !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(l, "|")
		if len(cells) < 4 {
			t.Errorf("policies.md:%d: a row of %s's table without a type: %s", line, cur.Name(), l)
			continue
		}
		if documented[cur] == nil {
			documented[cur] = map[string]string{}
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			documented[cur][m[1]] = strings.TrimSpace(cells[2])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, s := range subjects {
		fs, err := Fields(s)
		if err != nil {
			t.Fatal(err)
		}
		doc := documented[s]
		if doc == nil {
			t.Errorf("docs/policies.md has no \"### %s\" table", s.Name())
			continue
		}
		for _, fl := range fs {
			typ, ok := doc[fl.Name]
			switch {
			case !ok:
				t.Errorf("docs/policies.md: %s.%s (%s) is not in the %s table", s.Name(), fl.Name, docTypeName(fl), s.Name())
			case typ != docTypeName(fl):
				t.Errorf("docs/policies.md: %s.%s is documented as %q, it is %q", s.Name(), fl.Name, typ, docTypeName(fl))
			}
			delete(doc, fl.Name)
		}
		for n := range doc {
			t.Errorf("docs/policies.md: the %s table has %s, which %s has not", s.Name(), n, s.Name())
		}
	}
}

// TestFieldsRefuseOmitempty: a field the export could leave out is refused.
func TestFieldsRefuseOmitempty(t *testing.T) {
	type bad struct {
		A string `json:"a,omitempty"`
	}
	if _, err := Fields(reflect.TypeFor[bad]()); err == nil || !strings.Contains(err.Error(), "omitempty") {
		t.Errorf("Fields accepted omitempty: %v", err)
	}
	type untagged struct{ B int }
	if _, err := Fields(reflect.TypeFor[untagged]()); err == nil {
		t.Errorf("Fields accepted a field without a JSON name")
	}
}

// TestAppendJSONAlwaysWritesEveryField: empty lists are [], an absent
// object is null, empty strings are "".
func TestAppendJSONAlwaysWritesEveryField(t *testing.T) {
	b, err := AppendJSON(nil, &Function{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"symbols":[]`, `"true_sig":null`, `"text_regions":[]`, `"mismatch":""`, `"params":[]`, `"true_sym":""`} {
		if !strings.Contains(s, want) {
			t.Errorf("AppendJSON lacks %s: %s", want, s)
		}
	}
}
