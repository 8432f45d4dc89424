package rules

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/agnivade/levenshtein"
)

// The shapes of yaml.v3's messages that humanYAML rewords. Like the other
// patterns of this package they are compiled where an error is reworded,
// not when the package is initialised, which every btfgate process does.
const (
	unknownField = `^field (\S+) not found in type rules\.(\w+)$`
	cannotDecode = "^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$"
)

// humanYAML rewords yaml.v3's messages about the rules file's shape
// ("field featurs not found in type rules.Rules", "cannot unmarshal !!str
// `x` into bool") in the file's own terms; other messages are returned as
// they are.
func humanYAML(msg string) string {
	if m := regexp.MustCompile(unknownField).FindStringSubmatch(msg); m != nil {
		keys := yamlKeys(m[2])
		where := "a rules file"
		if m[2] == "Output" {
			where = "output:"
		}
		s := fmt.Sprintf("unknown key %q", m[1])
		if near := nearest(m[1], keys); near != "" {
			s += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return s + fmt.Sprintf("; %s has the keys %s", where, strings.Join(keys, ", "))
	}
	if m := regexp.MustCompile(cannotDecode).FindStringSubmatch(msg); m != nil {
		got := map[string]string{"str": "a string", "seq": "a list", "map": "a mapping", "int": "a number",
			"float": "a number", "bool": "true or false", "null": "null"}[m[1]]
		if got == "" {
			got = "a " + m[1]
		}
		if m[2] != "" {
			got += " (" + m[2] + ")"
		}
		want := map[string]string{"bool": "true or false", "string": "a string", "[]string": "a list of strings",
			"rules.Output": "a mapping with btf: and report:"}[m[3]]
		if want == "" {
			want = m[3]
		}
		return fmt.Sprintf("want %s, got %s", want, got)
	}
	return msg
}

// yamlKeys lists the YAML keys of the rules type named typ.
func yamlKeys(typ string) []string {
	var t reflect.Type
	switch typ {
	case "Rules":
		t = reflect.TypeFor[Rules]()
	case "Output":
		t = reflect.TypeFor[Output]()
	default:
		return nil
	}
	var keys []string
	for f := range t.Fields() {
		if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// nearest is the key closest to s within a third of its length in edits.
func nearest(s string, keys []string) string {
	best, bestD := "", len(s)/3+1
	for _, k := range keys {
		if d := levenshtein.ComputeDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
