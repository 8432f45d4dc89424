# Secret variables: variables whose contents an attacker with BPF read
# access would want (random number generator state, key material), left
# out of BTF (mode "exclude", the default) or tagged with a decl tag on
# their VAR (mode "annotate") so that tools can tell. Leaving a VAR out
# hides the variable's name, type and offset from BTF-based tools; it does
# not protect the memory itself.
#
# A variable is secret when pahole would encode it (only those have a VAR)
# and its name or its type, as facts.Variable prints it ("struct crng"),
# matches one of the globs of the configuration.
#
# Configuration, all optional, under data.btfgate.config.secret_variables:
#
#   mode: exclude | annotate     default exclude
#   tag: TEXT                    default "btfgate:secret"
#   names: [GLOB, ...]           default none
#   types: [GLOB, ...]           default none
#
# Annotate mode needs the decl_tag feature: without it the encoder leaves
# every policy decl tag out of the BTF (with a warning), so the outcome is
# refused instead of letting the secret variables in untagged.
package btfgate.variables

secret_defaults := {"mode": "exclude", "tag": "btfgate:secret", "names": [], "types": []}

secret_config := object.union(secret_defaults, object.get(data.btfgate.config, "secret_variables", {}))

# The variables pahole encodes whose name or type matches a glob, with
# the glob that matched.
secret := {id: msgs |
	some id, v in input.variables
	not pahole_reason[id]
	msgs := {sprintf("secret variable (%s matches %s)", [what, g]) | some [what, g] in secret_matches(v)}
	count(msgs) > 0
}

secret_matches(v) := {[sprintf("name %s", [v.name]), g] | some g in secret_config.names; glob.match(g, null, v.name)} | {[sprintf("type %s", [v.type]), g] | some g in secret_config.types; glob.match(g, null, v.type)}

exclude.secret_variables := secret if secret_config.mode == "exclude"

annotate.secret_variables := {id: {secret_config.tag} | some id, _ in secret} if secret_config.mode == "annotate"

deny.secret_variables_mode := {id: {sprintf("secret_variables.mode is %s, want \"exclude\" or \"annotate\"", [json.marshal(secret_config.mode)])} |
	some id, _ in secret
} if not secret_config.mode in {"exclude", "annotate"}

deny.secret_variables_untagged := {id: {"secret variable would go into BTF untagged: annotate mode needs the decl_tag feature"} |
	some id, _ in secret
} if {
	secret_config.mode == "annotate"
	not input.features.decl_tag
}
