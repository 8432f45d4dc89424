package dwarf

import (
	"errors"
	"fmt"
)

// DW_LLE_* entry kinds of .debug_loclists (DWARF 5 section 7.7.3).
const (
	lleEndOfList       = 0x00
	lleBaseAddressx    = 0x01
	lleStartxEndx      = 0x02
	lleStartxLength    = 0x03
	lleOffsetPair      = 0x04
	lleDefaultLocation = 0x05
	lleBaseAddress     = 0x06
	lleStartEnd        = 0x07
	lleStartLength     = 0x08
	lleGNUViewPair     = 0x09 // GNU extension: a view pair, no expression
)

// LocEntry is one entry of a location list: the expression Expr gives the
// location for addresses in [Low, High). Default marks a
// DW_LLE_default_location entry (no range). Base-address entries are not
// reported; they change the base of the entries that follow.
type LocEntry struct {
	Low, High uint64
	Expr      []byte // may be empty: the object has no location in the range
	Default   bool
}

// LocList calls fn for each entry of the location list at offset off, in
// order, until the list ends or fn returns false. For DWARF 5 units off is
// an offset in .debug_loclists (Field.Val of a ClassLocList attribute, with
// loclistx already resolved); for earlier versions it is an offset in
// .debug_loc (.debug_loc.dwo for a DWARF 4 split unit, whose entries
// index .debug_addr). The initial base address is u.LowPC, so u must have
// been passed to Reader.Seek.
func (d *Data) LocList(u *Unit, off uint64, fn func(LocEntry) bool) error {
	if !validSize(int(u.AddrSize)) {
		return d.decodeError(".debug_info", u.Offset, u.Index, fmt.Errorf("unsupported address size %d", u.AddrSize))
	}
	if u.Version >= 5 {
		return d.locLists5(u, off, fn)
	}
	if secs, err := d.unitSections(u); err == nil && d.parts[u.Part].kind == PartSplit {
		return d.locListGNUSplit(u, secs, off, fn)
	}
	return d.locList4(u, off, fn)
}

// addrMask returns the mask of an address of size bytes.
func addrMask(size int) uint64 {
	if size >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*uint(size)) - 1
}

func (d *Data) locLists5(u *Unit, off uint64, fn func(LocEntry) bool) error {
	const sec = ".debug_loclists"
	secs, err := d.unitSections(u)
	if err != nil {
		return err
	}
	if len(secs.locLists) == 0 {
		return d.decodeError(sec, off, u.Index, errNoSection)
	}
	b := d.newBuf(sec, secs.locLists, off, u.Index)
	as := int(u.AddrSize)
	mask := addrMask(as)
	base := u.LowPC
	addrx := func() uint64 {
		at := b.off
		idx := b.uleb()
		if b.err != nil {
			return 0
		}
		v, ok := indexed(secs.addr, u.AddrBase, idx, as, d.le)
		if !ok {
			b.fail(uint64(at), fmt.Errorf("address index %d out of range of .debug_addr (base 0x%x, size 0x%x)", idx, u.AddrBase, len(secs.addr)))
		}
		return v
	}
	for {
		at := b.off
		kind := b.u8()
		if b.err != nil {
			return b.err
		}
		var e LocEntry
		switch kind {
		case lleEndOfList:
			return nil
		case lleBaseAddressx:
			base = addrx()
			continue
		case lleBaseAddress:
			base = b.sized(as)
			continue
		case lleGNUViewPair:
			b.uleb()
			b.uleb()
			if b.err != nil {
				return b.err
			}
			continue
		case lleStartxEndx:
			e.Low = addrx()
			e.High = addrx()
		case lleStartxLength:
			e.Low = addrx()
			e.High = (e.Low + b.uleb()) & mask
		case lleOffsetPair:
			e.Low = (base + b.uleb()) & mask
			e.High = (base + b.uleb()) & mask
		case lleDefaultLocation:
			e.Default = true
		case lleStartEnd:
			e.Low = b.sized(as)
			e.High = b.sized(as)
		case lleStartLength:
			e.Low = b.sized(as)
			e.High = (e.Low + b.uleb()) & mask
		default:
			return d.decodeError(sec, uint64(at), u.Index, fmt.Errorf("unknown location list entry kind 0x%x", kind))
		}
		e.Expr = b.bytes(b.uleb())
		if b.err != nil {
			return b.err
		}
		if !fn(e) {
			return nil
		}
	}
}

var errNoEnd = errors.New("location list has no end-of-list entry")

func (d *Data) locList4(u *Unit, off uint64, fn func(LocEntry) bool) error {
	const sec = ".debug_loc"
	secs, err := d.unitSections(u)
	if err != nil {
		return err
	}
	if len(secs.loc) == 0 {
		return d.decodeError(sec, off, u.Index, errNoSection)
	}
	b := d.newBuf(sec, secs.loc, off, u.Index)
	as := int(u.AddrSize)
	mask := addrMask(as)
	base := u.LowPC
	for {
		if b.err == nil && b.off == len(b.data) {
			return d.decodeError(sec, off, u.Index, errNoEnd)
		}
		lo := b.sized(as)
		hi := b.sized(as)
		if b.err != nil {
			return b.err
		}
		if lo == 0 && hi == 0 {
			return nil
		}
		if lo == mask {
			base = hi
			continue
		}
		n := b.u16()
		expr := b.bytes(uint64(n))
		if b.err != nil {
			return b.err
		}
		if !fn(LocEntry{Low: (base + lo) & mask, High: (base + hi) & mask, Expr: expr}) {
			return nil
		}
	}
}

// Addr returns entry idx of u's table in .debug_addr (DW_OP_addrx,
// DW_OP_constx and DW_FORM_addrx operands). u must have been passed to
// Reader.Seek so that u.AddrBase is set.
func (d *Data) Addr(u *Unit, idx uint64) (uint64, error) {
	if !validSize(int(u.AddrSize)) {
		return 0, d.decodeError(".debug_info", u.Offset, u.Index, fmt.Errorf("unsupported address size %d", u.AddrSize))
	}
	secs, err := d.unitSections(u)
	if err != nil {
		return 0, err
	}
	v, ok := indexed(secs.addr, u.AddrBase, idx, int(u.AddrSize), d.le)
	if !ok {
		return 0, d.decodeError(".debug_addr", u.AddrBase, u.Index,
			fmt.Errorf("address index %d out of range (size 0x%x)", idx, len(secs.addr)))
	}
	return v, nil
}
