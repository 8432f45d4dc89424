package policies

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.rego variables/*.rego
var files embed.FS

// Default returns the default policy set: every .rego file of this package,
// rule modules and their _test.rego files alike, at the root of the FS,
// and the variable policies under variables/.
func Default() fs.FS {
	return files
}

// Framework lists the modules that every engine loads, even one that asks
// for no default rules: the decision assembly and the helpers rule modules
// share, and the variable decision with pahole's variable rules: the
// encoder builds VARs only for the variables those rules let in. The other
// non-test modules of Default are rule families.
func Framework() []string {
	return []string{"decision.rego", "true_signature.rego", "variables/decision.rego", "variables/pahole.rego"}
}

// IsTest reports whether name is a policy test file (name_test.rego).
func IsTest(name string) bool {
	const suffix = "_test.rego"
	return strings.HasSuffix(name, suffix) && len(name) > len(suffix)
}
