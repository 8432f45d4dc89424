package loader

import "github.com/btfgate/btfgate/loader/dwarf"

// TypeID is an index into a CU's type table. 0 is void; real entries are
// numbered from 1 in pahole's order.
type TypeID = uint32

// TypeTable holds the type DIEs of one compile unit in pahole's types_table
// order: DIE order, except that a DIE with children is numbered after its
// children (pahole adds a struct after the types nested in it, and a pointer
// after its type-tag annotations).
//
// Entries reference each other by TypeID. Members, enumerators, parameters
// and dimensions live in shared slices, addressed by each entry's First and
// Count.
type TypeTable struct {
	Unit     *dwarf.Unit
	Entries  []TypeEntry // Entries[0] is an unused void slot
	Members  []Member
	Enums    []Enumerator
	Params   []Param
	Dims     []uint32
	DeclTags []DeclTag // struct, union, member and typedef decl tags, in table order
	HasArray bool      // some entry is an array (pahole's need_index_type)
	IntID    TypeID    // first base type named "int", or 0

	Funcs      []Func      // subprograms in pahole's functions_table order
	FuncParams []FuncParam // their parameters
	FuncAnnots []FuncAnnot // their decl tags

	Vars      []Var    // CU-level variables in DIE order (pahole's tags_table)
	VarAnnots []string // decl tag values of variables
}

// TypeEntry is one type DIE.
type TypeEntry struct {
	Tag      dwarf.Tag // the DIE tag; TagTypeTag for a btf_type_tag annotation
	Name     string    // DW_AT_name (the tag value for type tags)
	Type     TypeID    // referenced type (DW_AT_type), 0 for void
	Size     uint64    // DW_AT_byte_size (enums: defaulted to 4)
	Encoding uint8     // base types: DW_AT_encoding
	Flags    EntryFlags
	First    uint32 // first member / enumerator / param / dimension
	Count    uint32 // number of members / enumerators / params / dimensions
	Offset   uint64 // the DIE's offset in .debug_info, for error messages
}

// EntryFlags are boolean facts about a type entry.
type EntryFlags uint8

const (
	// FlagDeclaration is DW_AT_declaration: a struct or union becomes FWD.
	FlagDeclaration EntryFlags = 1 << iota
	// FlagSignedEnum: the enum's DW_AT_type is a signed base type.
	FlagSignedEnum
	// FlagVarargs: a subroutine type with DW_TAG_unspecified_parameters.
	FlagVarargs
	// FlagVector: an array with DW_AT_GNU_vector.
	FlagVector
)

// Member is a struct or union data member (static members and inheritance
// entries are not kept).
type Member struct {
	Name         string
	BitOffset    uint64 // absolute bit offset within the struct
	Type         TypeID
	BitfieldSize uint32 // DW_AT_bit_size, 0 if not a bitfield
	// ByteOffset is the byte offset pahole starts a member's layout from
	// (PackedInference): DW_AT_data_member_location, or for a bitfield
	// placed by DW_AT_data_bit_offset that offset / 8 (0 for other members
	// placed by it).
	ByteOffset uint32
}

// Enumerator is one enum constant as pahole reads it: DW_FORM_sdata values
// keep their sign, data forms are zero-extended.
type Enumerator struct {
	Name  string
	Value uint64
}

// Param is one parameter of a subroutine type.
type Param struct {
	Name string
	Type TypeID
}

// DeclTag is a btf_decl_tag annotation on a struct, union, member or typedef.
type DeclTag struct {
	Target    TypeID
	Value     string
	Component int32 // member index, or -1 for the type itself
}

// TagTypeTag marks table entries made from btf_type_tag annotations on
// pointers; they become BTF TYPE_TAG types.
const TagTypeTag = dwarf.TagLLVMAnnotation

// reset empties the table for reuse, keeping its backing arrays.
func (t *TypeTable) reset(u *dwarf.Unit) {
	t.Unit = u
	t.Entries = append(t.Entries[:0], TypeEntry{})
	t.Members = t.Members[:0]
	t.Enums = t.Enums[:0]
	t.Params = t.Params[:0]
	t.Dims = t.Dims[:0]
	t.DeclTags = t.DeclTags[:0]
	t.HasArray = false
	t.IntID = 0
	t.Funcs = t.Funcs[:0]
	t.FuncParams = t.FuncParams[:0]
	t.FuncAnnots = t.FuncAnnots[:0]
	t.Vars = t.Vars[:0]
	t.VarAnnots = t.VarAnnots[:0]
}

// Len is the number of real entries (excluding the void slot).
func (t *TypeTable) Len() int { return len(t.Entries) - 1 }
