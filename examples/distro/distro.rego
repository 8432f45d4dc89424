# Skip rules tuned for a distribution kernel.
#
# keep.optimized_only puts back functions that pahole skipped for one
# reason only, "optimized parameters", when what they lost is at the end of
# the parameter list: the parameters before it keep their ABI registers, so
# a tracing program reads them correctly. Reading a lost parameter gives
# whatever its register holds. With scalar_lost_only, a function is put
# back only if no lost parameter is a pointer: a garbage pointer typed as a
# kernel struct is worse than a garbage integer. What the facts cannot
# show: GCC may drop the return value of an .isra clone, which fexit would
# then read as garbage.
#
# exclude.distro_drop leaves out whole subsystems: every function in a
# section, or whose name matches a glob. It is an exclude rule, so keep
# rules cannot put those functions back; keep.optimized_only never names a
# function an exclude rule names, so the two cannot conflict.
#
# true_signature.distro_clones gives true signatures to the functions a
# skip rule leaves out (and no keep or exclude rule names) that have a
# clone symbol (foo.isra.0, foo.constprop.0): they go in under the clone's
# name with its prototype, as with the true_signature feature. Unlike the
# feature, it renames no function that goes in anyway: the feature emits
# some 100 functions of the corpus kernel under their clone names instead
# of their base names, which fentry programs attach to by name. Groups
# whose clone does not qualify (U or C, see pahole-behaviour.md §2.7 step
# 4) stay out.
#
# Configuration, all optional, under data.btfgate.config.distro:
#
#   keep_optimized_only: BOOL     default true
#   scalar_lost_only: BOOL        default false
#   drop: [{section: NAME, reason: TEXT} | {name: GLOB, reason: TEXT}, ...]
#   clones: BOOL                  default false
package btfgate.functions

keep.optimized_only := {id: {"only optimized parameters, lost at the end of the list"} |
	some id, _ in skip.optimized_parameters
	distro_only_skip(id)
	not distro_excluded(id)
	distro_lost_at_end(input.functions[id].canonical.params)
	distro_lost_allowed(input.functions[id].canonical.params)
} if distro_config.keep_optimized_only

exclude.distro_drop := {id: {why | some part in distro_drop_parts; some why in part[id]} |
	some part in distro_drop_parts
	some id, _ in part
}

true_signature.distro_clones := {id: {"left out by a skip rule: its clone goes in under its own name"} |
	some id in distro_skipped_clones
	not distro_excluded(id)
	not distro_kept(id)
} if distro_config.clones

distro_config := object.union(
	{"keep_optimized_only": true, "scalar_lost_only": false, "drop": [], "clones": false},
	distro_user_config,
)

# The functions some skip rule names that have a dotted symbol.
distro_skipped_clones := {id |
	some by_id in skip
	some id, _ in by_id
	some sym in input.functions[id].symbols
	contains(sym.name, ".")
}

distro_kept(id) if {
	some by_id in keep
	by_id[id]
}

# Read through a default rule, not object.get(data, ...): a rule of this
# package that reads all of data depends on itself.
default distro_user_config := {}

distro_user_config := data.btfgate.config.distro

# No skip rule but optimized_parameters names the function: none of
# pahole's other five, and no skip rule of another module.
distro_only_skip(id) if count({name | some name, by_id in skip; by_id[id]}) == 1

distro_excluded(id) if {
	some by_id in exclude
	by_id[id]
}

# A parameter is lost if the ABI walk found it optimized out, or it has no
# location at all.
distro_lost(p) if p.optimized

distro_lost(p) if not p.has_loc

distro_lost_at_end(params) if not distro_lost_before_kept(params)

distro_lost_before_kept(params) if {
	some i, p in params
	distro_lost(p)
	some j, q in params
	j > i
	not distro_lost(q)
}

distro_lost_allowed(_) if not distro_config.scalar_lost_only

distro_lost_allowed(params) if {
	distro_config.scalar_lost_only
	not distro_lost_pointer(params)
}

distro_lost_pointer(params) if {
	some p in params
	distro_lost(p)
	contains(p.type, "*")
}

distro_drop_parts := [distro_drop_by_section, distro_drop_by_name]

# Each part is one comprehension over the batch, computed only when the
# drop list has entries of its kind.
distro_drop_sections := {e.section | some e in distro_config.drop; is_string(e.section)}

default distro_drop_by_section := {}

distro_drop_by_section := {id: {distro_drop_message(e) | some e in distro_config.drop; e.section == s} |
	s := input.functions[id].section
	distro_drop_sections[s]
} if count(distro_drop_sections) > 0

distro_drop_globs := {e.name | some e in distro_config.drop; is_string(e.name)}

default distro_drop_by_name := {}

distro_drop_by_name := {id: {distro_drop_message(e) |
	some e in distro_config.drop
	is_string(e.name)
	glob.match(e.name, null, input.functions[id].name)
} |
	some id in distro_drop_named
} if count(distro_drop_globs) > 0

distro_drop_named := {id |
	some g in distro_drop_globs
	glob.match(g, null, input.functions[id].name)
}

distro_drop_message(e) := e.reason if {
	is_string(e.reason)
} else := sprintf("dropped by the distro (section %s)", [e.section]) if {
	is_string(e.section)
} else := sprintf("dropped by the distro (%s)", [e.name])
