package policies

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.rego
var files embed.FS

// Default returns the default policy set: every .rego file of this package,
// rule modules and their _test.rego files alike, at the root of the FS.
func Default() fs.FS {
	return files
}

// Framework lists the modules that every engine loads, even one that asks
// for no default rules: the decision assembly and the helpers rule modules
// share. The other non-test modules of Default are rule families.
func Framework() []string {
	return []string{"decision.rego", "true_signature.rego"}
}

// IsTest reports whether name is a policy test file (name_test.rego).
func IsTest(name string) bool {
	const suffix = "_test.rego"
	return strings.HasSuffix(name, suffix) && len(name) > len(suffix)
}
