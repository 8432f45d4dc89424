package dwarf

// Class says how to interpret a Field's value. DWARF forms are shared
// between value kinds (a DW_FORM_sec_offset may point into the location
// lists, the range lists or the line table), so the class is derived from
// the form, the attribute and the unit version, as DWARF 5 section 7.5.5
// describes.
type Class uint8

// Class values. The line comment is the name String returns.
const (
	ClassUnknown       Class = 0  // ClassUnknown
	ClassAddress       Class = 1  // ClassAddress
	ClassAddrPtr       Class = 2  // ClassAddrPtr
	ClassBlock         Class = 3  // ClassBlock
	ClassConstant      Class = 4  // ClassConstant
	ClassExprLoc       Class = 5  // ClassExprLoc
	ClassFlag          Class = 6  // ClassFlag
	ClassLinePtr       Class = 7  // ClassLinePtr
	ClassLocList       Class = 8  // ClassLocList
	ClassLocListsPtr   Class = 9  // ClassLocListsPtr
	ClassMacPtr        Class = 10 // ClassMacPtr
	ClassRngList       Class = 11 // ClassRngList
	ClassRngListsPtr   Class = 12 // ClassRngListsPtr
	ClassReference     Class = 13 // ClassReference
	ClassReferenceSig  Class = 14 // ClassReferenceSig
	ClassReferenceAlt  Class = 15 // ClassReferenceAlt
	ClassString        Class = 16 // ClassString
	ClassStringAlt     Class = 17 // ClassStringAlt
	ClassStrOffsetsPtr Class = 18 // ClassStrOffsetsPtr
	ClassSecOffset     Class = 19 // ClassSecOffset
)
