package dwarf

import (
	"errors"
	"fmt"
	"sort"
)

// Unit describes one unit of .debug_info. Units returns the header fields;
// Reader.Seek fills in the fields taken from the unit's root DIE.
type Unit struct {
	Index        int    // position in .debug_info (0-based)
	Offset       uint64 // offset of the unit header in .debug_info
	Version      uint16 // 2..5
	UnitType     UnitType
	AddrSize     uint8
	Format64     bool   // 64-bit DWARF
	AbbrevOffset uint64 // offset of the abbreviation table in .debug_abbrev
	DataOffset   uint64 // offset of the first DIE (the root)
	End          uint64 // offset one past the unit

	// Signature is the dwo_id of skeleton and split compile units and the
	// type signature of type units; TypeOffset is the absolute .debug_info
	// offset of a type unit's type DIE. Both are 0 for other units.
	Signature  uint64
	TypeOffset uint64

	// Part is the number of the part the unit comes from: 0 for the
	// input's own, else an attached file's (see Data.Attach), whose
	// Offset and AbbrevOffset lie past the input's sections.
	Part int

	// Filled from the root DIE by Reader.Seek.
	StrOffsetsBase, AddrBase, LocListsBase, RngListsBase uint64
	LowPC                                                uint64 // DW_AT_low_pc of the root, 0 if none: the base address of lists
	Producer, Name                                       string
	Language                                             uint64
}

// OffsetSize returns the size of a section offset in the unit: 4 or 8.
func (u *Unit) OffsetSize() int {
	if u.Format64 {
		return 8
	}
	return 4
}

var errBadUnitLength = errors.New("reserved unit length value")

// Units scans the unit headers of .debug_info. It does not read any DIE.
// On a malformed header it returns the units before it and a *DecodeError
// naming the header's offset.
func (d *Data) Units() ([]Unit, error) {
	var units []Unit
	var err error
	for off := uint64(0); off < uint64(len(d.info)); {
		var u Unit
		if u, err = d.unitHeader(off, len(units)); err != nil {
			break
		}
		units = append(units, u)
		off = u.End
	}
	// Count the users of each abbreviation table: tables of one unit are
	// not cached (see abbrevTable).
	uses := make(map[uint64]int, len(units))
	for i := range units {
		uses[units[i].AbbrevOffset]++
	}
	d.mu.Lock()
	d.abbrevUses = uses
	d.mu.Unlock()
	return units, err
}

// unitHeader decodes the header of the unit at off.
func (d *Data) unitHeader(off uint64, index int) (Unit, error) {
	u := Unit{Index: index, Offset: off}
	b := d.newBuf(".debug_info", d.info, off, index)
	length := uint64(b.u32())
	switch {
	case length == 0xffffffff:
		u.Format64 = true
		length = b.u64()
	case length >= 0xfffffff0:
		b.fail(off, fmt.Errorf("%w 0x%x", errBadUnitLength, length))
	}
	if b.err != nil {
		return u, b.err
	}
	start := uint64(b.off)
	// The input's units end where the supplement's start.
	part := d.partAt(off)
	limit := d.parts[part].infoEnd
	if start > limit || length > limit-start {
		return u, d.decodeError(".debug_info", off, index,
			fmt.Errorf("%w: unit length 0x%x runs past the end of the section (0x%x bytes left)", ErrTruncated, length, limit-min(start, limit)))
	}
	u.End = start + length
	// Read the rest of the header within the unit only.
	b.data = d.info[:u.End]
	u.Version = b.u16()
	if b.err == nil && (u.Version < 2 || u.Version > 5) {
		return u, d.decodeError(".debug_info", start, index,
			fmt.Errorf("unsupported DWARF version %d", u.Version))
	}
	if u.Version >= 5 {
		u.UnitType = UnitType(b.u8())
		u.AddrSize = b.u8()
		u.AbbrevOffset = b.offset(u.Format64)
		switch u.UnitType {
		case UTCompile, UTPartial:
		case UTSkeleton, UTSplitCompile:
			u.Signature = b.u64()
		case UTType, UTSplitType:
			u.Signature = b.u64()
			u.TypeOffset = b.offset(u.Format64)
		default:
			if b.err == nil {
				return u, d.decodeError(".debug_info", off, index, fmt.Errorf("unknown unit type 0x%x", uint8(u.UnitType)))
			}
		}
	} else {
		u.UnitType = UTCompile
		u.AbbrevOffset = b.offset(u.Format64)
		u.AddrSize = b.u8()
	}
	if b.err != nil {
		return u, b.err
	}
	if part > 0 {
		u.Part = part
		p := d.parts[part]
		if u.AbbrevOffset >= p.abbrevEnd-p.abbrevOff {
			return u, d.decodeError(".debug_info", off, index,
				fmt.Errorf("abbreviation offset 0x%x past the end of .debug_abbrev (size 0x%x)", u.AbbrevOffset, p.abbrevEnd-p.abbrevOff))
		}
		u.AbbrevOffset += p.abbrevOff
	}
	switch u.AddrSize {
	case 1, 2, 4, 8:
	default:
		return u, d.decodeError(".debug_info", off, index, fmt.Errorf("unsupported address size %d", u.AddrSize))
	}
	if u.AbbrevOffset >= d.parts[part].abbrevEnd {
		return u, d.decodeError(".debug_info", off, index,
			fmt.Errorf("abbreviation offset 0x%x past the end of .debug_abbrev (size 0x%x)", u.AbbrevOffset, len(d.abbrev)))
	}
	u.DataOffset = uint64(b.off)
	if u.TypeOffset != 0 {
		if u.TypeOffset >= u.End-u.Offset {
			return u, d.decodeError(".debug_info", off, index, fmt.Errorf("type offset 0x%x outside the unit", u.TypeOffset))
		}
		u.TypeOffset += u.Offset
	}
	return u, nil
}

// FindUnit returns the index of the unit of units (as returned by Units,
// sorted by offset) that contains the .debug_info offset off, or -1.
func FindUnit(units []Unit, off uint64) int {
	i := sort.Search(len(units), func(i int) bool { return units[i].End > off })
	if i < len(units) && units[i].Offset <= off {
		return i
	}
	return -1
}
