package engine

import (
	"context"
	"strings"
	"testing"
)

func TestSandboxRefusesNondeterministicBuiltins(t *testing.T) {
	calls := map[string]string{
		"http.send":          `http.send({"method": "get", "url": "http://example.com"})`,
		"time.now_ns":        `time.now_ns()`,
		"rand.intn":          `rand.intn("x", 10)`,
		"uuid.rfc4122":       `uuid.rfc4122("x")`,
		"opa.runtime":        `opa.runtime()`,
		"net.lookup_ip_addr": `net.lookup_ip_addr("example.com")`,
		"net.cidr_contains":  `net.cidr_contains("10.0.0.0/8", "10.1.2.3")`,
		"trace":              `trace("x")`,
		"crypto.x509.parse_and_verify_certificates": `crypto.x509.parse_and_verify_certificates("x")`,
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			src := "package btfgate.functions\n\nskip.x[id] contains \"m\" if {\n\tinput.functions[id]\n\tx := " + call + "\n\tx\n}\n"
			_, err := New(context.Background(), Config{Modules: []Module{{Name: "net.rego", Source: src}}})
			if err == nil {
				t.Fatalf("%s compiled", name)
			}
			for _, want := range []string{"net.rego:5:", name + " is not allowed", "deterministic and offline"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestSandboxKeepsPureBuiltins(t *testing.T) {
	src := `package btfgate.functions

skip.pure[id] contains msg if {
	f := input.functions[id]
	glob.match("a*", null, f.name)
	regex.match("^a", f.name)
	msg := sprintf("%s %d", [upper(f.name), time.parse_rfc3339_ns("2024-01-01T00:00:00Z")])
}
`
	e := newEngine(t, Config{Modules: []Module{{Name: "pure.rego", Source: src}}})
	d := decide(t, e, fn(1, "abc", nil))[0]
	if d.Include || d.Reasons[0].Message != "ABC 1704067200000000000" {
		t.Errorf("decision %+v", d)
	}
}

func TestSandboxInPolicyTests(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "clock_test.rego", "package clock_test\n\ntest_now if time.now_ns() > 0\n")
	_, err := RunTests(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "time.now_ns is not allowed") || !strings.Contains(err.Error(), "clock_test.rego:3:") {
		t.Errorf("err = %v", err)
	}
}
