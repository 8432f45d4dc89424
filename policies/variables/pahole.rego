# pahole 1.31's variable filter (btf_encoder__encode_cu_variables(),
# pahole-behaviour.md §3.2 steps 3 to 11) as skip rules, one per reason.
# input.variables holds only variables with a static address (steps 1 and
# 2 are facts.Variable's definition). A name BTF cannot hold and a void
# type fail the encode unless encode_force is on, as in pahole; with it,
# they are skipped.
package btfgate.variables

skip.no_section := {id: {"not in a PROGBITS or NOBITS section"} |
	input.variables[id].section == ""
}

skip.section_not_encoded := {id: {"section not encoded with these features (var: .data..percpu, global_var: all)"} |
	some id, v in input.variables
	v.section != ""
	not section_encoded(v.section)
}

section_encoded(_) if input.features.global_var

section_encoded(".data..percpu") if input.features["var"]

skip.no_name := {id: {"no name"} | input.variables[id].name == ""}

# pahole's filter_variable_name prefixes.
filtered_prefixes := [
	"__UNIQUE_ID",
	"__tpstrtab_",
	"__exitcall_",
	"__gendwarfksyms_ptr_",
	"__func_stack_frame_non_standard_",
]

skip.filtered_name := {id: {"name filtered (compiler or macro artefact)"} |
	some id, v in input.variables
	startswith(v.name, "__")
	some p in filtered_prefixes
	startswith(v.name, p)
}

# At offset 0 (where variables of discarded sections land), pahole wants a
# symbol of the variable's name in its section.
skip.no_symbol := {id: {"at offset 0 without a symbol in its section"} |
	some id, v in input.variables
	v.offset == 0
	not v.in_symtab
}

skip.invalid_name := {id: {"name BTF cannot hold (encode_force)"} |
	input.features.encode_force
	some id, v in input.variables
	not v.valid_name
}

skip.void_type := {id: {"void type (encode_force)"} |
	input.features.encode_force
	some id, v in input.variables
	v.void_type
}

skip.zero_size := {id: {"size 0 or past 4 GiB"} |
	some id, v in input.variables
	not v.void_type
	too_big(v.size)
}

too_big(0)

too_big(n) if n > 4294967295

skip.far_offset := {id: {"offset past 4 GiB"} |
	some id, v in input.variables
	v.offset > 4294967295
}
