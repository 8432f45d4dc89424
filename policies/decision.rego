# Decides which functions go into BTF from the rule documents of package
# btfgate.functions. Every engine loads this module, with or without the
# default rule families.
#
# Rule modules add to six documents, each keyed by rule name, then by
# function id (the key of input.functions), to a set:
#
#   skip.RULE[id] = {MESSAGE, ...}     leave the function out; a keep rule
#                                      overrides it. pahole's six reasons
#                                      are skip rules.
#   exclude.RULE[id] = {MESSAGE, ...}  leave the function out, whatever
#                                      keep rules say.
#   keep.RULE[id] = {MESSAGE, ...}     put the function in, overriding every
#                                      skip rule.
#   annotate.RULE[id] = {TAG, ...}     add decl tags to the function if it
#                                      goes in: TAG is a string (component
#                                      -1) or {"value": S, "component": N}.
#   deny.RULE[id] = {MESSAGE, ...}     this outcome is not allowed: the
#                                      encode fails, naming the function,
#                                      the rule and MESSAGE.
#   true_signature.RULE[id] = {MESSAGE, ...}
#                                      emit the function as the
#                                      true_signature feature would: its
#                                      clone (foo.isra.0) under its own
#                                      name. Evaluated first, on its own
#                                      (true_signature_result below).
#
# The first four decide; deny only judges. A deny rule may read the
# outcome from this package (left_out, excluded_by, skipped_by, kept_by,
# excluded, skipped, kept, documents) and the four deciding documents of
# package btfgate.functions. It must not read this package's deny,
# checked, problems, verdicts or result: they depend on every deny rule,
# so that is a cycle, which OPA rejects when it compiles the policies
# (rego_recursion_error). For the same reason a skip, exclude, keep or
# annotate rule must not read the outcome.
#
# Write a rule either as a comprehension over the batch, which is the
# fastest form and the one the default rules use:
#
#   skip.RULE := {id: {"message"} | input.functions[id].flag}
#
# or as a partial rule, which may have several bodies but slows down (the
# square of their count) when it names thousands of functions:
#
#   skip.RULE[id] contains "message" if input.functions[id].flag
#
# A function named by both a keep and an exclude rule is a conflict: the
# engine fails, naming the function and the rules on both sides.
#
# This module decides in bulk, with set operations over the whole batch;
# the engine then lists each decided function's reasons from the same
# documents: pahole's in pahole_order, then the others by kind (exclude
# before skip), rule and message.
package btfgate.decision

import data.btfgate.functions as rules

# pahole's reasons in its precedence order: pahole logs only the first
# that applies (pahole-behaviour.md §8.6 step 12).
pahole_order := [
	"ambiguous_address",
	"optimized_parameters",
	"reordered_parameters",
	"uncertain_location",
	"inconsistent_prototype",
	"unexpected_register",
]

# The rule documents. A comprehension is always defined, so each is
# computed once per batch even when no rule matched.
skip := {name: by_id | some name, by_id in rules.skip}

exclude := {name: by_id | some name, by_id in rules.exclude}

keep := {name: by_id | some name, by_id in rules.keep}

annotate := {name: by_id | some name, by_id in rules.annotate}

# The documents that decide. Deny is not among them: it judges their
# outcome.
documents := {"skip": skip, "exclude": exclude, "keep": keep, "annotate": annotate}

deny := {name: by_id | some name, by_id in rules.deny}

# The ids each kind of rule names.
skipped := named(skip)

excluded := named(exclude)

kept := named(keep)

named(doc) := {id |
	some by_id in doc
	is_object(by_id)
	some id, _ in by_id
}

# Precedence: an excluded function stays out; else a kept one goes in;
# else a skipped one stays out; every other function goes in.
left_out := excluded | (skipped - kept)

# Functions both kept and excluded: errors.
conflicts := excluded & kept

# Which rules named each function, by kind: {id: {RULE, ...}}, for the
# functions that some rule of that kind names. Deny rules read these to
# say why a function is out (or in); each costs one lookup per rule and
# named function, and only when read.
excluded_by := by_rule(exclude, excluded)

skipped_by := by_rule(skip, skipped)

kept_by := by_rule(keep, kept)

by_rule(doc, ids) := {id: {name |
	some name, by_id in doc
	is_object(by_id)
	by_id[id]
} | some id in ids}

# Every document whose shape is checked.
checked := object.union(documents, {"deny": deny})

# A rule whose document is not keyed by function id, or whose entries are
# not sets (written with := where contains was meant): its verdicts would
# be lost, so they are errors. The engine asks for these only when its own
# check of the documents fails (wellFormed in engine/assemble.go, which
# tests the same three conditions: change both together).
problems := shape_problems(checked)

shape_problems(docs) := (({{"kind": kind, "rule": name, "problem": "want an object keyed by function id"} |
	some kind, doc in docs
	some name, by_id in doc
	not is_object(by_id)
} | {{"kind": kind, "rule": name, "problem": sprintf("key %s is not the id of a function in input.functions", [json.marshal(id)])} |
	some kind, doc in docs
	some name, by_id in doc
	is_object(by_id)
	some id, _ in by_id
	not input.functions[id]
}) | {{"kind": kind, "rule": name, "problem": sprintf("entry for %s is %s, want a set: write %s.%s[id] contains VALUE", [function_label(id), type_name(v), kind, name])} |
	some kind, doc in docs
	some name, by_id in doc
	is_object(by_id)
	some id, v in by_id
	not is_set(v)
})

# function_label names a function for people: its id and name, or the id
# alone when input.functions has no such function.
function_label(id) := sprintf("%s (%s)", [json.marshal(id), input.functions[id].name])

function_label(id) := json.marshal(id) if not input.functions[id].name

# Which functions get their true signature, as the true_signature
# feature would give it to every function: the group's clone (foo.isra.0)
# is emitted under its own name with its own prototype. The engine asks
# for this first, on the facts as they are without true signatures, then
# recomputes the selected groups (true_sig, canonical, optimized_skip) and
# decides every group with the documents above. A true_signature rule may
# read those documents and the outcome (they are evaluated on the first
# facts then); they must not read the selection.
true_signature := {name: by_id | some name, by_id in rules.true_signature}

true_signature_result := {
	"true_signature": true_signature,
	"problems": shape_problems({"true_signature": true_signature}),
}

# What the engine reads for each batch: the verdicts without their
# problems. Checking every entry's shape here cost as much as deciding a
# small module's functions (three passes over every document, one Rego
# step per entry): the engine checks the shapes itself as it reads the
# documents, exactly as problems does, and asks for problems only when one
# is wrong.
verdicts := {
	"pahole_order": pahole_order,
	"documents": documents,
	"deny": deny,
	"left_out": left_out,
	"conflicts": conflicts,
}

# The verdicts and their problems: a batch's whole outcome, for people
# and tests (opa eval data.btfgate.decision.result).
result := object.union(verdicts, {"problems": problems})
