package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWithHexAddrs(t *testing.T) {
	in := `{"addr":18446744071589329232,"x":{"value":0,"name":"a,\"value\":12"},"value":"traced","addr":12}`
	want := `{"addr":18446744071589329232,"addr_hex":"0xffffffff819ff950","x":{"value":0,"value_hex":"0x0","name":"a,\"value\":12"},"value":"traced","addr":12,"addr_hex":"0xc"}`
	if got := string(withHexAddrs([]byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestJSONAddressesHaveHex: explain --json, facts and the report carry a
// hex string beside each address (issue 18, "Why" 4: jq 1.6 rounds
// 64-bit decimal addresses).
func TestJSONAddressesHaveHex(t *testing.T) {
	out, _, err := run(t, "explain", "--json", fixture, "fn_driver")
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Facts struct {
			Symbols []struct {
				Value    uint64 `json:"value"`
				ValueHex string `json:"value_hex"`
			} `json:"symbols"`
		} `json:"facts"`
		Instances []struct {
			Addr    uint64 `json:"addr"`
			AddrHex string `json:"addr_hex"`
		} `json:"instances"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Facts.Symbols) == 0 || l.Facts.Symbols[0].ValueHex != "0x210" || l.Facts.Symbols[0].Value != 0x210 {
		t.Errorf("symbols %+v", l.Facts.Symbols)
	}
	if len(l.Instances) == 0 || l.Instances[0].AddrHex != "0x10210" {
		t.Errorf("instances %+v", l.Instances)
	}
	facts, _, err := run(t, "facts", fixture)
	if err != nil || !strings.Contains(facts, `"value":528,"value_hex":"0x210"`) {
		t.Errorf("facts: %v\n%s", err, head(facts, 2))
	}
}
