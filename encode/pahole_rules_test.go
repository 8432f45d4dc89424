package encode

import (
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/features"
)

// paholeReason is the message pahole prints after "NAME : skipping BTF
// encoding of function due to " for its final (highest-precedence) reason.
// It is the Go statement of the default policy, used to cross-check the
// Rego policies and as the decision before policies are wired in.
func paholeReason(f *facts.Function, set features.Set) string {
	if set.TrueSignature && f.TrueSig != nil {
		return ""
	}
	switch {
	case f.AmbiguousAddr:
		return "ambiguous address"
	case f.Canonical.OptimizedSkip:
		return "optimized parameters"
	case f.Reordered:
		return "reordered parameters"
	case f.UncertainLoc:
		return "uncertain parameter location"
	case set.ConsistentFunc && f.Inconsistent:
		return "inconsistet prototype"
	case f.UnexpectedReg:
		return "unexpected register usage for parameter"
	}
	return ""
}
