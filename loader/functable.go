package loader

import "github.com/btfgate/btfgate/loader/elffile"

// Func is one DW_TAG_subprogram of a compile unit, an entry of pahole's
// functions_table, with the per-function facts pahole's dwarf_loader
// derives (spec §2.3-§2.5). Parameters and annotations live in the
// table's FuncParams and FuncAnnots, addressed by First/Count.
type Func struct {
	Name       string // DW_AT_name, else the abstract origin's or specification's
	Offset     uint64 // DIE offset in .debug_info
	Origin     uint64 // DW_AT_abstract_origin DIE offset, 0 if none
	LowPC      uint64 // DW_AT_low_pc, 0 if absent
	Ret        TypeID // return type: own DW_AT_type, else the origin's; 0 is void
	Flags      FuncFlags
	First      uint32 // first parameter in TypeTable.FuncParams
	Count      uint32
	AnnotFirst uint32 // first decl tag in TypeTable.FuncAnnots
	AnnotCount uint32
}

// FuncFlags are boolean facts about a function.
type FuncFlags uint16

const (
	FuncDeclaration      FuncFlags = 1 << iota // DW_AT_declaration
	FuncExternal                               // DW_AT_external
	FuncNoreturn                               // DW_AT_noreturn
	FuncInline                                 // DW_AT_inline present and non-zero (abstract root)
	FuncHasOrigin                              // DW_AT_abstract_origin present
	FuncVarargs                                // DW_TAG_unspecified_parameters child
	FuncSignatureChanged                       // clang DW_CC_nocall on itself or its origin
	FuncReordered                              // a parameter's position differs from its origin's
	FuncOptimizedParms                         // a parameter is optimized out or has no location
	FuncUnexpectedReg                          // a parameter is in an unexpected register (no struct parameter)
	FuncNoreturnOrigin                         // DW_AT_noreturn on the abstract origin
	FuncExternalOrigin                         // DW_AT_external on the abstract origin
	FuncClang                                  // the unit's DW_AT_producer names clang (pahole's producer_clang)
	FuncTrueSigWalk                            // the ABI walk built the true signature (true_signature and FuncSignatureChanged)
)

// FuncParam is one formal parameter of a function, with pahole's location
// facts (spec §2.4, §8.4).
type FuncParam struct {
	Name          string
	Type          TypeID
	Idx           int32 // position among the DIE's parameters
	OriginIdx     int32 // position in the abstract origin, -1 without origin
	LocReg        int8  // first DWARF register number found, -1 if none
	HasLoc        bool  // DW_AT_location present (shared with the origin)
	HasConstValue bool  // DW_AT_const_value present
	LocStack      bool  // entry 0 is DW_OP_fbreg
	LocConst      bool  // entry 0 is a literal or constant
	InMemory      bool  // aggregate larger than the registers it could use
	TypeSize      uint16
	Optimized     bool // verdict of the ABI walk
	UnexpectedReg bool // verdict of the ABI walk
	// FirstFields and SecondFields: for an aggregate larger than a
	// register whose location is a DW_OP_piece list, bit k is set when a
	// piece starts at byte k of the first (second) register's part.
	FirstFields  uint64
	SecondFields uint64
	// TrueSigMember names the struct member a register holds alone, the
	// true_signature member candidate (pahole's true_sig_member_name):
	// exactly one piece in exactly one of the two register parts, at a
	// member's offset. TrueSigType is that member's type. With
	// true_signature the ABI walk of a clang function whose signature
	// changed may pass the member instead of the struct; the parameter is
	// then named PARAM__MEMBER. "" when there is no candidate, or when the
	// walk found that the struct keeps its registers.
	TrueSigMember string
	TrueSigType   TypeID
	// TrueSigApplied: the walk replaced Type by TrueSigType.
	TrueSigApplied bool
	// ABISlot is the first argument register slot (0: the ABI's first
	// register) the ABI walk gave the parameter, and ABISlots how many it
	// took; -1 and 0 when it got none: an aggregate passed in memory on
	// clang's register path, a parameter past the register slots, one the
	// true signature drops.
	ABISlot  int8
	ABISlots int8
	// LocRegs and EntryValueRegs: bit r set when some entry of the
	// location names DWARF register r (below 64), outside or inside
	// DW_OP_entry_value. FirstAtEntry: the location is one expression, or
	// its list's first entry starts at the function's DW_AT_low_pc.
	// EntryLoc: the kind (EntryLoc*) of the location covering low_pc.
	// All from this DIE's own DW_AT_location (paramloc.go).
	LocRegs        uint64
	EntryValueRegs uint64
	FirstAtEntry   bool
	EntryLoc       uint8
}

// FuncAnnot is a btf_decl_tag on a function (Component -1) or on its
// parameter number Component.
type FuncAnnot struct {
	Value     string
	Component int32
}

// Arch is the calling convention pahole assumes for parameter checks
// (spec §2.4).
type Arch struct {
	NrRegs int     // parameters passed in registers
	RegMap [8]int8 // expected DWARF register per slot, -1: not checked
	AggTwo bool    // aggregates may use two registers
}

// ArchFor returns pahole's table entry for an ELF e_machine.
func ArchFor(machine uint16) Arch {
	a := Arch{AggTwo: true}
	for i := range a.RegMap {
		a.RegMap[i] = -1
	}
	switch machine {
	case elffile.EM_S390:
		a.NrRegs = 5
		a.AggTwo = false
		for i := 0; i < 5; i++ {
			a.RegMap[i] = int8(2 + i)
		}
	case elffile.EM_X86_64:
		a.NrRegs = 6
		copy(a.RegMap[:], []int8{5, 4, 1, 2, 8, 9})
	case elffile.EM_AARCH64, elffile.EM_ARM:
		a.NrRegs = 8
		for i := 0; i < 8; i++ {
			a.RegMap[i] = int8(i)
		}
	case elffile.EM_SPARC, elffile.EM_SPARCV9:
		a.NrRegs = 6
	case elffile.EM_ARC, elffile.EM_MIPS, elffile.EM_PPC, elffile.EM_PPC64, elffile.EM_RISCV:
		a.NrRegs = 8
	}
	return a
}
