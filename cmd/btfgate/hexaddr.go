package main

import (
	"bytes"
	"strconv"
)

// hexKeys are the JSON keys of addresses in facts (facts.Symbol.Value,
// facts.Instance.Addr) that get a hex string beside them.
var hexKeys = [][]byte{[]byte(`"addr":`), []byte(`"value":`)}

// withHexAddrs returns JSON text js with `"KEY_hex":"0x…"` after every
// `"addr":N` and `"value":N` member holding a number: jq 1.6 and other
// tools that read numbers as doubles round 64-bit kernel addresses. Only
// members (after '{' or ',') count, never text inside a string.
func withHexAddrs(js []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(js) + len(js)/8)
	last := 0
	for i := 0; i < len(js); i++ {
		if js[i] != '"' || i == 0 || (js[i-1] != '{' && js[i-1] != ',') {
			continue
		}
		for _, k := range hexKeys {
			if !bytes.HasPrefix(js[i:], k) {
				continue
			}
			start := i + len(k)
			end := start
			for end < len(js) && js[end] >= '0' && js[end] <= '9' {
				end++
			}
			if end == start || end-start > 20 {
				break
			}
			v, err := strconv.ParseUint(string(js[start:end]), 10, 64)
			if err != nil {
				break
			}
			out.Write(js[last:end])
			out.WriteString(`,"`)
			out.Write(k[1 : len(k)-2])
			out.WriteString(`_hex":"0x`)
			out.WriteString(strconv.FormatUint(v, 16))
			out.WriteByte('"')
			last, i = end, end-1
			break
		}
	}
	out.Write(js[last:])
	return out.Bytes()
}
