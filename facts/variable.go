package facts

// Variable is one variable definition with a static address: a
// DW_TAG_variable at the top level of a compile unit that is a definition
// (or has a specification), is not artificial, and whose location is
// DW_OP_addr or DW_OP_addrx (with an optional DW_OP_plus_uconst). These
// are the variables pahole looks at for VARs (pahole-behaviour.md §3.2,
// steps 1 and 2); declarations, function-static variables and variables
// in registers or on the stack are not facts.
//
// Name, Type, External come from the DW_AT_specification's DIE when there
// is one, as pahole takes them.
type Variable struct {
	// ID identifies the variable within one encode: variables are numbered
	// from 0 in compile unit order, then DIE order.
	ID int `json:"id"`
	// Name is DW_AT_name; "" if none.
	Name string `json:"name"`
	// Section is the ELF section holding Addr: the first PROGBITS or
	// NOBITS section in index order whose address range holds it, "" if
	// none (pahole's get_elf_section).
	Section string `json:"section"`
	// Addr is the location's address; Offset is Addr relative to Section's
	// start (equal to Addr without a section).
	Addr   uint64 `json:"addr"`
	Offset uint64 `json:"offset"`
	// Size is the type's size in bytes as pahole computes it (tag__size):
	// 0 for an incomplete array such as "extern char x[];".
	Size uint64 `json:"size"`
	// Type is the variable's type printed for people, e.g. "struct
	// rq" or "const char *[4]"; "void" if it has none.
	Type string `json:"type"`
	// VoidType: the variable has no DW_AT_type.
	VoidType bool `json:"void_type"`
	// ValidName: Name is a name BTF can hold ([A-Za-z_.][A-Za-z0-9_.]*,
	// at most 128 characters; pahole's btf_name_valid).
	ValidName bool `json:"valid_name"`
	// NameFiltered: Name starts with one of the prefixes pahole's
	// filter_variable_name drops: __UNIQUE_ID, __tpstrtab_, __exitcall_,
	// __gendwarfksyms_ptr_, __func_stack_frame_non_standard_ (compiler
	// and macro artefacts).
	NameFiltered bool `json:"name_filtered"`
	// External: DW_AT_external; its VAR's linkage is global, else static.
	External bool `json:"external"`
	// Percpu: Section is .data..percpu.
	Percpu bool `json:"percpu"`
	// InSymtab: .symtab has an STT_OBJECT symbol named Name in Section.
	InSymtab bool `json:"in_symtab"`
	// CU is the compile unit's index in .debug_info; DIE the defining
	// DW_TAG_variable's offset in .debug_info.
	CU  int    `json:"cu"`
	DIE uint64 `json:"die"`
	// PaholeSkip is why pahole 1.31 leaves the variable out of BTF with
	// this encode's features, "" if it encodes a VAR for it: the first of
	// the VarSkip* reasons that applies, in pahole's order. It is the one
	// statement of pahole's variable rules; the default policies
	// (policies/variables/pahole.rego) skip on it with a message per
	// reason.
	PaholeSkip string `json:"pahole_skip"`
}

// pahole's reasons for leaving a variable out, in the order it checks them
// (pahole-behaviour.md §3.2 steps 3 to 11); each is also the name of the
// default policies' rule that reports it.
const (
	VarSkipNoSection    = "no_section"          // not in a PROGBITS or NOBITS section
	VarSkipSection      = "section_not_encoded" // var: only .data..percpu; global_var: all
	VarSkipNoName       = "no_name"
	VarSkipFilteredName = "filtered_name" // NameFiltered
	VarSkipNoSymbol     = "no_symbol"     // at offset 0 without a symbol in its section
	VarSkipInvalidName  = "invalid_name"  // !ValidName, with encode_force
	VarSkipVoidType     = "void_type"     // VoidType, with encode_force
	VarSkipZeroSize     = "zero_size"     // size 0 or past 4 GiB
	VarSkipFarOffset    = "far_offset"    // offset past 4 GiB
)

// VarSkipReasons returns the VarSkip* reasons in pahole's order.
func VarSkipReasons() []string {
	return []string{VarSkipNoSection, VarSkipSection, VarSkipNoName, VarSkipFilteredName,
		VarSkipNoSymbol, VarSkipInvalidName, VarSkipVoidType, VarSkipZeroSize, VarSkipFarOffset}
}
