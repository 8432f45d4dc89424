package engine

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// forbiddenBuiltin reports whether policies may not call the builtin: it
// reaches the network, the clock, randomness or the runtime, or has a side
// effect (trace). OPA marks most of these nondeterministic; the names and
// prefixes catch the rest (certificate verification reads the clock) and
// future additions.
func forbiddenBuiltin(b *ast.Builtin) bool {
	if b.Nondeterministic {
		return true
	}
	switch b.Name {
	case "trace", "opa.runtime", "time.now_ns", "uuid.rfc4122":
		return true
	}
	return hasForbiddenPrefix(b.Name)
}

// hasForbiddenPrefix reports whether name is in a family of builtins that
// policies may not call.
func hasForbiddenPrefix(name string) bool {
	for _, prefix := range []string{"http.", "net.", "rand.", "uuid.", "providers.", "crypto.x509.parse_and_verify_certificates"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// forbiddenBuiltins returns the names of the builtins sandbox removes,
// for a compile error to say why a call is refused.
func forbiddenBuiltins() map[string]bool {
	_, forbidden := sandbox()
	return forbidden
}

// sandbox returns the capabilities policies compile against: this OPA's,
// less the forbidden builtins, whose names it also returns so that a
// compile error can say why a call is refused.
func sandbox() (*ast.Capabilities, map[string]bool) {
	caps := ast.CapabilitiesForThisVersion()
	removed := map[string]bool{}
	kept := caps.Builtins[:0:0]
	for _, b := range caps.Builtins {
		if forbiddenBuiltin(b) {
			removed[b.Name] = true
			continue
		}
		kept = append(kept, b)
	}
	caps.Builtins = kept
	caps.AllowNet = []string{}
	return caps, removed
}
