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

exclude.config_deny := config_verdicts(config_entries("deny", "denied by configuration"))

keep.config_keep := config_verdicts(config_entries("keep", "kept by configuration"))

annotate.config_tags := config_verdicts({[e.name, e.tag] | some e in data.btfgate.config.tags})

true_signature.config_true_signature := config_verdicts(config_entries("true_signature", "true signature by configuration"))

# [glob, value] for each entry of a deny or keep list: the value is the
# entry's reason, else what the list does and the glob.
config_entries(list, what) := {[config_glob(e), config_message(e, what)] | some e in data.btfgate.config[list]}

config_glob(entry) := entry if is_string(entry)

config_glob(entry) := entry.name if is_object(entry)

config_message(entry, what) := entry.reason if {
	is_object(entry)
	is_string(entry.reason)
} else := sprintf("%s (%s)", [what, config_glob(entry)])

# {id: {value, ...}} for the functions whose name some glob of entries
# matches, with the values of the entries that match. Every name is
# matched against every glob once; only matches are gathered.
config_verdicts(entries) := {id: {e[1] | some e in entries; glob.match(e[0], null, input.functions[id].name)} |
	some id in config_matches(entries)
} if count(entries) > 0

config_matches(entries) := {id |
	some e in entries
	glob.match(e[0], null, input.functions[id].name)
}
