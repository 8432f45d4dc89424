package policies_test

import (
	"context"
	"io/fs"
	"slices"
	"testing"

	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/policies"
)

// TestDefaultPolicies runs the embedded _test.rego files.
func TestDefaultPolicies(t *testing.T) {
	results, err := engine.RunTests(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 30 {
		t.Errorf("ran %d policy tests, want the default set's (30 or more)", len(results))
	}
	for _, r := range results {
		if !r.Pass {
			t.Errorf("%s (%s:%d): %s\n%s", r.Name, r.File, r.Line, r.Failure, r.Output)
		}
	}
}

// TestEveryRuleHasTests: each policy file has a _test.rego beside it.
func TestEveryRuleHasTests(t *testing.T) {
	var names []string
	for _, pattern := range []string{"*.rego", "variables/*.rego"} {
		found, err := fs.Glob(policies.Default(), pattern)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, found...)
	}
	for _, name := range names {
		if policies.IsTest(name) {
			continue
		}
		test := name[:len(name)-len(".rego")] + "_test.rego"
		if !slices.Contains(names, test) {
			t.Errorf("%s has no %s", name, test)
		}
	}
	for _, name := range policies.Framework() {
		if !slices.Contains(names, name) {
			t.Errorf("framework module %s is not embedded", name)
		}
	}
}
