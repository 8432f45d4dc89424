package facts

// Function is one function group: an ELF base name (the symbol name up to
// its first '.') together with every DWARF subprogram instance that matched
// it. pahole keeps or skips a group as a whole; so do policies.
type Function struct {
	// ID identifies the group uniquely within one encode (names can repeat
	// across inputs, ids cannot). Groups are numbered in pahole's emission
	// order: sorted by Name with strcmp.
	ID int `json:"id"`
	// Name is the ELF base name; the FUNC emitted for the group has this name.
	Name string `json:"name"`
	// Symbols are the .symtab STT_FUNC symbols with this base name, except
	// .cold and .part ones, in symbol table order.
	Symbols []Symbol `json:"symbols"`
	// AmbiguousAddr: the symbols have two or more distinct addresses (pahole
	// "ambiguous address", flag A). As in pahole, never set for the last
	// base name in sorted order.
	AmbiguousAddr bool `json:"ambiguous_addr"`
	// Kfunc: the name appears as __BTF_ID__func__NAME__N inside a set8 of
	// .BTF_ids (a kfunc id set, whatever its flags: 6.1's sets have none);
	// KfuncFlags is the flags word (KF_*) of the set entry at the
	// symbol's place (after resolve_btfids sorted the set by id, possibly
	// another entry's). PaholeKfunc: that
	// set's flags have BTF_SET8_KFUNCS (kernels since 6.9), pahole's
	// criterion for the bpf_kfunc and bpf_fastcall decl tags.
	Kfunc       bool   `json:"kfunc"`
	KfuncFlags  uint32 `json:"kfunc_flags"`
	PaholeKfunc bool   `json:"pahole_kfunc"`
	// BTFIDRef: some __BTF_ID__func__NAME__N symbol in .BTF_ids names this
	// function, so the kernel looks it up by BTF id (kfunc or not).
	BTFIDRef bool `json:"btf_id_ref"`

	// Instances is how many DWARF subprograms (definitions, abstract roots,
	// out-of-line copies, clone bodies, copies in other CUs) joined the group.
	Instances int `json:"instances"`
	// UnexpectedReg (U): some instance has a parameter in a register other
	// than the ABI's for its slot, and no parameter of that instance is a
	// struct (through const/typedef). ORed over the group.
	UnexpectedReg bool `json:"unexpected_reg"`
	// UncertainLoc (C): some instance passes a named packed struct directly
	// on the stack (parameter index >= the ABI's register count).
	UncertainLoc bool `json:"uncertain_loc"`
	// Reordered (R): some instance lists a parameter at another position
	// than its abstract origin does (clones that drop or move parameters).
	Reordered bool `json:"reordered"`
	// Inconsistent (I): two instances' prototypes differ (parameter count,
	// return type or a parameter type). Only compared while U, I and R are
	// still unset, in group order, as pahole does. Mismatch is pahole's
	// message for the first difference.
	Inconsistent bool   `json:"inconsistent"`
	Mismatch     string `json:"mismatch"`

	// Canonical is the instance pahole would emit: the first whose address
	// equals a symbol address and that is not "optimized" (see
	// Instance.OptimizedSkip), else the first whose address matches, else
	// the first.
	Canonical Instance `json:"canonical"`
	// TrueSig is the instance emitted under its dotted clone name where
	// true signatures apply to the group: with the true_signature feature,
	// or because a true_signature policy rule selected the group (the
	// first instance with TrueSym set and U, C unset so far). Nil
	// otherwise; policies then see null.
	TrueSig *Instance `json:"true_sig"`

	// Section is the ELF section of the first symbol (e.g. ".text",
	// ".noinstr.text", ".init.text").
	Section string `json:"section"`
	// TextRegions names the linker-marked text regions some symbol lies
	// in, sorted: "noinstr" for an address in [__noinstr_text_start,
	// __noinstr_text_end), likewise "entry", "irqentry", "softirqentry",
	// "kprobes", "cpuidle", "sched", "lock", "static_call" or any other
	// __NAME_text_start/__NAME_text_end pair of .symtab in the symbol's
	// section. A vmlinux merges those input sections into .text and
	// keeps only the markers; modules keep the sections (see Section) and
	// have no markers. Regions may nest (irqentry lies inside entry).
	TextRegions []string `json:"text_regions"`
	// Noreturn: the canonical instance (or its origin) has DW_AT_noreturn.
	Noreturn bool `json:"noreturn"`
	// External: the canonical instance (or its origin) has DW_AT_external.
	External bool `json:"external"`
}

// Symbol is one ELF function symbol.
type Symbol struct {
	Name    string `json:"name"`
	Value   uint64 `json:"value"`
	Size    uint64 `json:"size"`
	Section string `json:"section"`
	Global  bool   `json:"global"` // STB_GLOBAL (or weak)
}

// Instance is one DWARF subprogram of a group (a pahole "saved state").
type Instance struct {
	// CU is the compile unit's index in .debug_info; DIE the subprogram's
	// offset in .debug_info.
	CU  int    `json:"cu"`
	DIE uint64 `json:"die"`
	// Addr is DW_AT_low_pc, or 0 (abstract inline roots, hot/cold split
	// functions described by DW_AT_ranges only).
	Addr uint64 `json:"addr"`
	// AddrMatchesSymbol: Addr equals one of the group's symbol values
	// (never for ET_REL inputs, matching pahole's libdwfl layout).
	AddrMatchesSymbol bool `json:"addr_matches_symbol"`
	// Inline: DW_AT_inline is present (an abstract root).
	Inline bool `json:"inline"`
	// OptimizedParms: a parameter is optimized out or has no location.
	OptimizedParms bool `json:"optimized_parms"`
	// UnexpectedReg, UncertainLoc, Reordered: this instance's own U, C, R.
	UnexpectedReg bool `json:"unexpected_reg"`
	UncertainLoc  bool `json:"uncertain_loc"`
	Reordered     bool `json:"reordered"`
	// SignatureChanged: clang marked the function DW_CC_nocall (its ABI
	// differs from the source), on itself or its abstract origin, and it
	// is not an abstract root (DW_AT_inline).
	SignatureChanged bool `json:"signature_changed"`
	// Clang: the compile unit's DW_AT_producer names clang (pahole's
	// producer_clang). It selects the ABI walk, see ABIWalk.
	Clang bool `json:"clang"`
	// ABIWalk is how the loader checked the parameter locations against
	// the ABI (pahole-behaviour.md §2.5):
	//   "registers": clang, signature unchanged: only a register a
	//     parameter names must fall in the slots the ABI gives it (an
	//     aggregate in memory takes none); a missing location is not an
	//     optimized parameter.
	//   "locations": gcc, or clang with SignatureChanged: a parameter
	//     without a location (or, gcc only, with a constant value) is
	//     optimized; one in the wrong register is unexpected.
	//   "true_signature": as "locations", building the true signature of
	//     a clang function whose signature changed (the true_signature
	//     feature): dead parameters are dropped, a struct of which one
	//     register holds a single member is passed as that member.
	ABIWalk string `json:"abi_walk"`
	// OptimizedSymbol: a symbol at Addr has .isra or .constprop in its name.
	OptimizedSymbol bool `json:"optimized_symbol"`
	// OptimizedSkip: pahole's "optimized parameters" test for this
	// instance: OptimizedParms and (SignatureChanged or OptimizedSymbol),
	// and true signatures do not apply to the group (see TrueSig).
	OptimizedSkip bool `json:"optimized_skip"`
	// TrueSym: where true signatures apply to the group, the first dotted
	// symbol at Addr.
	TrueSym string `json:"true_sym"`
	// Prototype is the instance's C declaration as its FUNC_PROTO would be
	// emitted (after pahole's parameter drops), named as its FUNC would
	// be, for people: "int foo(struct sk_buff *skb, u32 len)". Built only
	// when a policy mentions "prototype", and for reports and explain.
	Prototype string `json:"prototype"`
	// Params are the parameters as DWARF lists them (after origin names).
	Params []Param `json:"params"`
}

// Param is what the loader learned about one parameter's location.
type Param struct {
	Name string `json:"name"`
	// Type is the parameter's type, printed for people.
	Type string `json:"type"`
	// Idx is the DIE position; OriginIdx the position in the abstract
	// origin (-1 without origin).
	Idx       int `json:"idx"`
	OriginIdx int `json:"origin_idx"`
	// HasLoc: DW_AT_location present (for abstract roots: on some concrete
	// instance in the same CU). HasConstValue: DW_AT_const_value present.
	HasLoc        bool `json:"has_loc"`
	HasConstValue bool `json:"has_const_value"`
	// LocReg is the first DWARF register the location names, -1 if none.
	LocReg int `json:"loc_reg"`
	// LocStack: location entry 0 is DW_OP_fbreg. LocConst: entry 0 is a
	// constant.
	LocStack bool `json:"loc_stack"`
	LocConst bool `json:"loc_const"`
	// TypeSize in bytes; InMemory: an aggregate too large for registers.
	TypeSize int  `json:"type_size"`
	InMemory bool `json:"in_memory"`
	// IsStruct: the type, through const/typedef, is a struct.
	IsStruct bool `json:"is_struct"`
	// Optimized, UnexpectedReg: this parameter's verdicts from the ABI walk.
	Optimized     bool `json:"optimized"`
	UnexpectedReg bool `json:"unexpected_reg"`
	// ABISlot is the first argument register slot the ABI walk gave the
	// parameter (0 is the first), ABISlots how many: 1, or an aggregate's
	// size in registers when two-register aggregates apply (x86_64: a
	// 16-byte struct takes 2). -1 and 0 when it got none: an aggregate in
	// memory on the "registers" walk, a parameter past the register
	// slots, one the true signature drops. ExpectedReg is the DWARF
	// register of slot ABISlot (x86_64: 5 RDI, 4 RSI, 1 RDX, 2 RCX, 8 R8,
	// 9 R9), -1 when there is none or the architecture has no map.
	ABISlot     int8 `json:"abi_slot"`
	ABISlots    int8 `json:"abi_slots"`
	ExpectedReg int8 `json:"expected_reg"`
	// LocRegs: every DWARF register (below 64) some entry of the location
	// list names (DW_OP_regN, regx, bregN, bregx), outside
	// DW_OP_entry_value; EntryValueRegs: those named inside
	// DW_OP_entry_value or DW_OP_GNU_entry_value. Sorted.
	LocRegs        []int `json:"loc_regs"`
	EntryValueRegs []int `json:"entry_value_regs"`
	// FirstRangeAtEntry: the location is a single expression, or the first
	// entry of its list starts at the function's DW_AT_low_pc.
	FirstRangeAtEntry bool `json:"first_range_at_entry"`
	// EntryLoc is the kind of the location entry covering DW_AT_low_pc:
	// "register", "entry_value", "stack", "const", "other" or "none".
	EntryLoc string `json:"entry_loc"`
	// PassedAsMember: the "true_signature" walk passes TrueSigMember
	// instead of the struct (the true signature names the parameter
	// PARAM__MEMBER, with the member's type).
	PassedAsMember bool `json:"passed_as_member"`
	// TrueSigMember is the struct member that one register holds alone
	// according to the location's DW_OP_piece list (pahole's true
	// signature member candidate), "" if none.
	TrueSigMember string `json:"true_sig_member"`
}
