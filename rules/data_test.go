package rules

import (
	"fmt"
	"strings"
	"testing"
)

func manyKeys(n int) []byte {
	var b strings.Builder
	b.WriteString("data:\n  big:\n")
	for i := range n {
		fmt.Fprintf(&b, "    k%d: %d\n", i, i)
	}
	return []byte(b.String())
}

func TestDataManyKeysDuplicatesAndAliasBombs(t *testing.T) {
	r, err := Parse("r.yaml", manyKeys(100_000))
	if err != nil {
		t.Fatal(err)
	}
	if big := r.Data["big"].(map[string]any); len(big) != 100_000 || big["k99999"] != 99999 {
		t.Errorf("big has %d keys", len(big))
	}
	_, err = Parse("r.yaml", []byte("data:\n  deny: [a]\n  x: 1\n  deny: [b]\n"))
	if err == nil || !strings.Contains(err.Error(), "r.yaml:4:") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("duplicate key: %v", err)
	}
	bomb := "data:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := range 12 {
		name := fmt.Sprintf("b%d", i)
		bomb += fmt.Sprintf("  %s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	_, err = Parse("r.yaml", []byte(bomb))
	if err == nil || !strings.Contains(err.Error(), "aliases") || !strings.Contains(err.Error(), "r.yaml:") {
		t.Errorf("alias bomb: %v", err)
	}
}

// BenchmarkDataManyKeys: a data mapping of 100k keys (21.7 s when
// yaml.v3 decoded it into a map; linear now).
func BenchmarkDataManyKeys(b *testing.B) {
	data := manyKeys(100_000)
	for b.Loop() {
		if _, err := Parse("r.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
