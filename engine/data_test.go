package engine

import (
	"testing"

	"github.com/btfgate/btfgate/facts"
)

// TestDataKeepsLargeAddresses: a kernel address in the data (a uint64
// above MaxInt64, as YAML decodes 0xffffffff81000000) compares with the
// addresses in the input as the same number.
func TestDataKeepsLargeAddresses(t *testing.T) {
	src := `package btfgate.functions

exclude.in_range := {id: {"in range"} |
	some s in input.functions[id].symbols
	s.value >= data.btfgate.config.range.start
	s.value < data.btfgate.config.range.end
}
`
	e := newEngine(t, Config{
		Modules: []Module{{Name: "range.rego", Source: src}},
		Data: map[string]any{"range": map[string]any{
			"start": uint64(0xffffffff81000000), "end": uint64(0xffffffff81000100),
		}},
	})
	at := func(addr uint64) func(*facts.Function) {
		return func(f *facts.Function) { f.Symbols[0].Value = addr }
	}
	ds := decide(t, e,
		fn(1, "low", at(0x1000)),
		fn(2, "inside", at(0xffffffff81000080)),
		fn(3, "after", at(0xffffffff81000100)),
	)
	if !ds[0].Include || ds[1].Include || !ds[2].Include {
		t.Errorf("decisions %+v: want only inside left out", ds)
	}
}
