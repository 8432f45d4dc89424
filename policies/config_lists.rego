# Rules driven by configuration data, data.btfgate.config, which the YAML
# rules files fill in:
#
#   deny: [ENTRY, ...]   exclude.config_deny: leave matching functions out,
#                        whatever keep rules say
#   keep: [ENTRY, ...]   keep.config_keep: put matching functions in, even
#                        if skip rules (pahole's included) apply
#   tags: [{"name": GLOB, "tag": VALUE}, ...]
#                        annotate.config_tags: decl tag VALUE (component
#                        -1) on matching functions that go in
#   true_signature: [ENTRY, ...]
#                        true_signature.config_true_signature: emit
#                        matching functions as the true_signature feature
#                        would (their clone, foo.isra.0, under its name)
#
# ENTRY is a glob on the function name, "bpf_*", or an object
# {"name": GLOB, "reason": TEXT}. Globs match the whole name with no
# delimiters: * any run of characters, ? one character, [a-z] a class,
# {a,b} alternatives.
package btfgate.functions

# Each rule is guarded by its list, which OPA's rule index checks before
# the body runs: without the list (most encodes), the rule costs one index
# lookup per batch instead of building an empty entry set and counting it.
exclude.config_deny := config_verdicts(config_entries("deny", "denied by configuration")) if data.btfgate.config.deny

keep.config_keep := config_verdicts(config_entries("keep", "kept by configuration")) if data.btfgate.config.keep

annotate.config_tags := config_verdicts({[e.name, e.tag] | some e in data.btfgate.config.tags}) if data.btfgate.config.tags

true_signature.config_true_signature := config_verdicts(config_entries("true_signature", "true signature by configuration")) if data.btfgate.config.true_signature

# [glob, value] for each entry of a deny or keep list: the value is the
# entry's reason, else what the list does and the glob.
config_entries(list, what) := {[config_glob(e), config_message(e, what)] | some e in data.btfgate.config[list]}

config_glob(entry) := entry if is_string(entry)

config_glob(entry) := entry.name if is_object(entry)

config_message(entry, what) := entry.reason if {
	is_object(entry)
	is_string(entry.reason)
} else := sprintf("%s (%s)", [what, config_glob(entry)])

# {id: {value, ...}} for the functions whose name some entry matches, with
# the values of the entries that match. Entries without glob
# metacharacters are names: they are gathered into one object keyed by
# name (object.union_n merges the values of a name given twice) and looked
# up once per function, so a list of tens of thousands of names costs one
# pass over the functions; only real globs are matched against every name.
config_verdicts(entries) := {id: object.keys(values) |
	some id, values in object.union(config_by_name(entries), config_by_glob(entries))
} if count(entries) > 0

# {id: {value: true, ...}} for the entries that are names.
config_by_name(entries) := {id: names[f.name] |
	names := object.union_n([{e[0]: {e[1]: true}} | some e in entries; not config_is_glob(e[0])])
	count(names) > 0
	some id, f in input.functions
	names[f.name]
}

# {id: {value: true, ...}} for the entries that are globs.
config_by_glob(entries) := {id: values |
	globs := [e | some e in entries; config_is_glob(e[0])]
	some id in {matched |
		some e in globs
		glob.match(e[0], null, input.functions[matched].name)
	}
	values := {e[1]: true | some e in globs; glob.match(e[0], null, input.functions[id].name)}
}

config_is_glob(pattern) if regex.match(`[*?\[\]{}\\]`, pattern)
