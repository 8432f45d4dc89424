// Package policies owns btfgate's default Rego policy set: the rules that
// reproduce pahole's choice of which functions go into BTF, one file per
// rule family with its tests beside it, and decision.rego, which assembles
// every rule's verdict into one decision per function; and under
// variables/ the same for variables (pahole.rego, decision.rego).
//
// The files are embedded; package engine compiles and evaluates them. The
// decision schema, the input document and the shape of the configuration
// data are described in decision.rego and in package engine.
package policies
