# pahole 1.31's variable filter (btf_encoder__encode_cu_variables(),
# pahole-behaviour.md §3.2 steps 3 to 11): the encoder states it once, as
# each variable's pahole_skip fact (the first of pahole's reasons that
# applies, in pahole's order, "" if pahole encodes the variable), and
# builds VARs only for the variables pahole encodes. pahole_reason maps the
# id of each variable pahole leaves out to that reason; the engine reports
# it as Decision.Final with its message from pahole_messages.
#
# input.variables holds only variables with a static address (steps 1 and
# 2 are facts.Variable's definition). A name BTF cannot hold and a void
# type fail the encode unless encode_force is on, as in pahole; with it,
# they are skipped (invalid_name, void_type).
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

pahole_reason := {id: v.pahole_skip |
	some id, v in input.variables
	v.pahole_skip != ""
}
