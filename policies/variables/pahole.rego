# pahole 1.31's variable filter (btf_encoder__encode_cu_variables(),
# pahole-behaviour.md §3.2 steps 3 to 11): pahole_reason maps the id of
# each variable pahole leaves out to the first of its reasons that applies,
# in pahole's order; the engine reports it as Decision.Final with its
# message from pahole_messages.
#
# input.variables holds only variables with a static address (steps 1 and
# 2 are facts.Variable's definition). A name BTF cannot hold and a void
# type fail the encode unless encode_force is on, as in pahole; with it,
# they are skipped.
#
# It is one document, not a skip rule per reason: a kernel has tens of
# thousands of variables with a static address, most of which pahole leaves
# out, and one pass over them with an else chain costs a fraction of one
# {id: {message}} document per reason.
package btfgate.variables

pahole_messages := {
	"no_section": "not in a PROGBITS or NOBITS section",
	"section_not_encoded": "section not encoded with these features (var: .data..percpu, global_var: all)",
	"no_name": "no name",
	"filtered_name": "name filtered (compiler or macro artefact)",
	"no_symbol": "at offset 0 without a symbol in its section",
	"invalid_name": "name BTF cannot hold (encode_force)",
	"void_type": "void type (encode_force)",
	"zero_size": "size 0 or past 4 GiB",
	"far_offset": "offset past 4 GiB",
}

pahole_reason := {id: r |
	some id, v in input.variables
	r := reason(v)
}

reason(v) := "no_section" if {
	v.section == ""
} else := "section_not_encoded" if {
	not section_encoded(v.percpu)
} else := "no_name" if {
	v.name == ""
} else := "filtered_name" if {
	v.name_filtered
} else := "no_symbol" if {
	# at offset 0 (where variables of discarded sections land), pahole
	# wants a symbol of the variable's name in its section
	v.offset == 0
	v.in_symtab == false
} else := "invalid_name" if {
	input.features.encode_force
	v.valid_name == false
} else := "void_type" if {
	input.features.encode_force
	v.void_type
} else := "zero_size" if {
	v.void_type == false
	too_big(v.size)
} else := "far_offset" if {
	v.offset > 4294967295
}

# With global_var every section is encoded; without it only .data..percpu,
# and only with var.
section_encoded(_) if input.features.global_var

section_encoded(true) if input.features["var"]

too_big(0)

too_big(n) if n > 4294967295
