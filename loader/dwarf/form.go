package dwarf

// Decoding kinds: how the reader decodes an attribute of a given form. The
// kind and the encoded size are computed once per abbreviation (they depend
// on the unit's version, address size and offset size), so the DIE decoder
// switches on a small dense enum.
const (
	kUnknown uint8 = iota
	kAddr
	kAddrx // ULEB index
	kAddrx1
	kAddrx2
	kAddrx3
	kAddrx4
	kBlock1
	kBlock2
	kBlock4
	kBlock // ULEB length
	kExprloc
	kData1
	kData2
	kData4
	kData8
	kData16
	kSdata
	kUdata
	kImplicitConst
	kString
	kStrp     // offset into .debug_str
	kLineStrp // offset into .debug_line_str
	kStrAlt   // offset into a supplementary file's strings
	kStrx     // ULEB index
	kStrx1
	kStrx2
	kStrx3
	kStrx4
	kRef1
	kRef2
	kRef4
	kRef8
	kRefUdata
	kRefAddr
	kRefSig8
	kRefAlt // reference into a supplementary file (size 4 or 8)
	kSecOffset
	kFlag
	kFlagPresent
	kLoclistx
	kRnglistx
	kIndirect
)

// formKind returns the decoding kind of form and its encoded size in bytes,
// or -1 when the size depends on the data.
func formKind(form Form, version uint16, addrSize, offSize int) (uint8, int) {
	switch form {
	case FormAddr:
		return kAddr, addrSize
	case FormAddrx, FormGNUAddrIndex:
		return kAddrx, -1
	case FormAddrx1:
		return kAddrx1, 1
	case FormAddrx2:
		return kAddrx2, 2
	case FormAddrx3:
		return kAddrx3, 3
	case FormAddrx4:
		return kAddrx4, 4
	case FormBlock1:
		return kBlock1, -1
	case FormBlock2:
		return kBlock2, -1
	case FormBlock4:
		return kBlock4, -1
	case FormBlock:
		return kBlock, -1
	case FormExprloc:
		return kExprloc, -1
	case FormData1:
		return kData1, 1
	case FormData2:
		return kData2, 2
	case FormData4:
		return kData4, 4
	case FormData8:
		return kData8, 8
	case FormData16:
		return kData16, 16
	case FormSdata:
		return kSdata, -1
	case FormUdata:
		return kUdata, -1
	case FormImplicitConst:
		return kImplicitConst, 0
	case FormString:
		return kString, -1
	case FormStrp:
		return kStrp, offSize
	case FormLineStrp:
		return kLineStrp, offSize
	case FormStrpSup, FormGNUStrpAlt:
		return kStrAlt, offSize
	case FormStrx, FormGNUStrIndex:
		return kStrx, -1
	case FormStrx1:
		return kStrx1, 1
	case FormStrx2:
		return kStrx2, 2
	case FormStrx3:
		return kStrx3, 3
	case FormStrx4:
		return kStrx4, 4
	case FormRef1:
		return kRef1, 1
	case FormRef2:
		return kRef2, 2
	case FormRef4:
		return kRef4, 4
	case FormRef8:
		return kRef8, 8
	case FormRefUdata:
		return kRefUdata, -1
	case FormRefAddr:
		if version <= 2 {
			return kRefAddr, addrSize
		}
		return kRefAddr, offSize
	case FormRefSig8:
		return kRefSig8, 8
	case FormRefSup4:
		return kRefAlt, 4
	case FormRefSup8:
		return kRefAlt, 8
	case FormGNURefAlt:
		return kRefAlt, offSize
	case FormSecOffset:
		return kSecOffset, offSize
	case FormFlag:
		return kFlag, 1
	case FormFlagPresent:
		return kFlagPresent, 0
	case FormLoclistx:
		return kLoclistx, -1
	case FormRnglistx:
		return kRnglistx, -1
	case FormIndirect:
		return kIndirect, -1
	}
	return kUnknown, -1
}

// formClass returns the class of an attribute encoded with form in a unit
// of the given version.
func formClass(attr Attr, form Form, version uint16) Class {
	switch form {
	case FormAddr, FormAddrx, FormAddrx1, FormAddrx2, FormAddrx3, FormAddrx4, FormGNUAddrIndex:
		return ClassAddress
	case FormBlock1, FormBlock2, FormBlock4, FormBlock:
		if attrIsExprLoc(attr) {
			return ClassExprLoc
		}
		return ClassBlock
	case FormExprloc:
		return ClassExprLoc
	case FormData4, FormData8:
		// Before DWARF 4, data4 and data8 also encoded section offsets.
		if version < 4 {
			if c := attrPtrClass(attr); c != ClassUnknown {
				return c
			}
		}
		return ClassConstant
	case FormData1, FormData2, FormData16, FormSdata, FormUdata, FormImplicitConst:
		return ClassConstant
	case FormString, FormStrp, FormLineStrp, FormStrx, FormStrx1, FormStrx2, FormStrx3, FormStrx4, FormGNUStrIndex:
		return ClassString
	case FormStrpSup, FormGNUStrpAlt:
		return ClassStringAlt
	case FormRef1, FormRef2, FormRef4, FormRef8, FormRefUdata, FormRefAddr:
		return ClassReference
	case FormRefSig8:
		return ClassReferenceSig
	case FormRefSup4, FormRefSup8, FormGNURefAlt:
		return ClassReferenceAlt
	case FormSecOffset:
		if c := attrPtrClass(attr); c != ClassUnknown {
			return c
		}
		return ClassSecOffset
	case FormFlag, FormFlagPresent:
		return ClassFlag
	case FormLoclistx:
		return ClassLocList
	case FormRnglistx:
		return ClassRngList
	}
	return ClassUnknown
}

// attrIsExprLoc reports whether a block form of attr holds a DWARF
// expression (DWARF 2 and 3 used blocks for expressions).
func attrIsExprLoc(attr Attr) bool {
	switch attr {
	case AttrLocation, AttrByteSize, AttrBitOffset, AttrBitSize, AttrStringLength,
		AttrLowerBound, AttrReturnAddr, AttrBitStride, AttrUpperBound, AttrCount,
		AttrDataMemberLocation, AttrFrameBase, AttrSegment, AttrStaticLink,
		AttrUseLocation, AttrVtableElemLocation, AttrAllocated, AttrAssociated,
		AttrDataLocation, AttrByteStride:
		return true
	}
	return false
}

// attrPtrClass returns the class of a section-offset value of attr, or
// ClassUnknown when attr does not point into another section.
func attrPtrClass(attr Attr) Class {
	switch attr {
	case AttrLocation, AttrStringLength, AttrReturnAddr, AttrDataMemberLocation,
		AttrFrameBase, AttrSegment, AttrStaticLink, AttrUseLocation,
		AttrVtableElemLocation:
		return ClassLocList
	case AttrRanges, AttrStartScope:
		return ClassRngList
	case AttrStmtList:
		return ClassLinePtr
	case AttrMacroInfo, AttrMacros, AttrGNUMacros:
		return ClassMacPtr
	case AttrStrOffsetsBase:
		return ClassStrOffsetsPtr
	case AttrAddrBase, AttrGNUAddrBase:
		return ClassAddrPtr
	case AttrRnglistsBase, AttrGNURangesBase:
		return ClassRngListsPtr
	case AttrLoclistsBase:
		return ClassLocListsPtr
	}
	return ClassUnknown
}
