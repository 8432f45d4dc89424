package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoRegoPackage: btfgate links neither OPA's rego nor its tester
// package, nor anything that imports them. They pull in OPA's Wasm
// compiler, planner, bundle loader, protobuf IR and JWT libraries, whose
// package initialisation every btfgate process, one per kernel module in
// a kernel build, would pay for in CPU time and resident memory; the
// engine evaluates with topdown and runs policy tests itself instead.
func TestLinksNoRegoPackage(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), out)
	}
	for _, p := range deps {
		switch p {
		case "github.com/open-policy-agent/opa/v1/rego", "github.com/open-policy-agent/opa/v1/tester",
			"github.com/open-policy-agent/opa/v1/bundle", "github.com/open-policy-agent/opa/v1/loader":
			t.Errorf("btfgate links %s", p)
		}
	}
}
