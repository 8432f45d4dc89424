# Decides which variables go into BTF as VARs from the rule documents of
# package btfgate.variables. Every engine loads this module and pahole.rego.
#
# Rule modules add to five documents, each keyed by rule name, then by
# variable id (the key of input.variables), to a set, as for functions
# (policies/decision.rego):
#
#   skip.RULE[id] = {MESSAGE, ...}     leave the variable out; a keep rule
#                                      overrides it.
#   exclude.RULE[id] = {MESSAGE, ...}  leave it out, whatever keep rules say.
#   keep.RULE[id] = {MESSAGE, ...}     put it in, overriding skip rules.
#   annotate.RULE[id] = {TAG, ...}     add decl tags (strings) to its VAR if
#                                      it goes in.
#   deny.RULE[id] = {MESSAGE, ...}     this outcome is not allowed: the
#                                      encode fails, naming the variable.
#
# pahole's reasons (pahole.rego) are a document of their own,
# pahole_reason = {id: RULE, ...}, that skips as skip rules do. A keep
# rule may override them only where pahole's encoder could encode the
# variable: the encode fails naming a kept variable that pahole leaves out
# (its VAR was never built). Rules may read input.variables and
# input.features only, one variable at a time: a batch is part of one
# encode.
package btfgate.variable_decision

import data.btfgate.variables as rules

# pahole's reasons in the order it checks them (pahole-behaviour.md §3.2):
# the first that applies is the variable's final reason.
pahole_order := [
	"no_section",
	"section_not_encoded",
	"no_name",
	"filtered_name",
	"no_symbol",
	"invalid_name",
	"void_type",
	"zero_size",
	"far_offset",
]

pahole_reason := rules.pahole_reason

pahole_skipped := object.keys(pahole_reason)

skip := {name: by_id | some name, by_id in rules.skip}

exclude := {name: by_id | some name, by_id in rules.exclude}

keep := {name: by_id | some name, by_id in rules.keep}

annotate := {name: by_id | some name, by_id in rules.annotate}

documents := {"skip": skip, "exclude": exclude, "keep": keep, "annotate": annotate}

deny := {name: by_id | some name, by_id in rules.deny}

skipped := named(skip)

excluded := named(exclude)

kept := named(keep)

named(doc) := {id |
	some by_id in doc
	is_object(by_id)
	some id, _ in by_id
}

# Precedence as for functions: excluded stays out, else kept goes in, else
# skipped stays out; every other variable goes in.
left_out := excluded | ((skipped | pahole_skipped) - kept)

conflicts := excluded & kept

excluded_by := by_rule(exclude, excluded)

skipped_by := by_rule(skip, skipped)

kept_by := by_rule(keep, kept)

by_rule(doc, ids) := {id: {name |
	some name, by_id in doc
	is_object(by_id)
	by_id[id]
} | some id in ids}

checked := object.union(documents, {"deny": deny})

# Entries of the wrong shape, as for functions; the engine asks for these
# only when its own check of the documents fails (wellFormed in
# engine/assemble.go: change both together).
problems := (({{"kind": kind, "rule": name, "problem": "want an object keyed by variable id"} |
	some kind, doc in checked
	some name, by_id in doc
	not is_object(by_id)
} | {{"kind": kind, "rule": name, "problem": sprintf("key %s is not the id of a variable in input.variables", [json.marshal(id)])} |
	some kind, doc in checked
	some name, by_id in doc
	is_object(by_id)
	some id, _ in by_id
	not input.variables[id]
}) | {{"kind": kind, "rule": name, "problem": sprintf("entry for %s is %s, want a set: write %s.%s[id] contains VALUE", [json.marshal(id), type_name(v), kind, name])} |
	some kind, doc in checked
	some name, by_id in doc
	is_object(by_id)
	some id, v in by_id
	not is_set(v)
})

# What the engine reads for each batch: the verdicts without their
# problems, which the engine asks for only when its own check of the
# documents' shapes fails (as for functions, policies/decision.rego).
verdicts := {
	"pahole_order": pahole_order,
	"pahole_reason": pahole_reason,
	"pahole_messages": rules.pahole_messages,
	"documents": documents,
	"deny": deny,
	"left_out": left_out,
	"conflicts": conflicts,
}

# The verdicts and their problems: a batch's whole outcome.
result := object.union(verdicts, {"problems": problems})
