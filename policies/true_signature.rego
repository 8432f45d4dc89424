# A group that has an instance with a dotted clone symbol (f.true_sig) is
# emitted under that name, e.g. foo.isra.0, before any skip test runs:
# none of pahole's six reasons apply to it, not even "ambiguous address"
# (pahole-behaviour.md §2.7 step 4, §2.9 a and j, §8.6 step 9). Rule
# families call this helper.
#
# true_sig is set only where true signatures apply: to every group with
# the true_signature feature, or to the groups a true_signature rule
# selected (decision.rego, true_signature_result).
package btfgate.functions

emitted_as_true_signature(f) if f.true_sig != null
