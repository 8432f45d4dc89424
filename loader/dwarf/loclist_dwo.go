package dwarf

import "fmt"

// DW_LLE_GNU_* entry kinds of a DWARF 4 split unit's .debug_loc.dwo (the
// GNU split DWARF extension DWARF 5 standardized as .debug_loclists):
// addresses are .debug_addr indexes, expressions have a 2-byte length.
const (
	lleGNUEndOfList      = 0x00
	lleGNUBaseAddressSel = 0x01 // index
	lleGNUStartEnd       = 0x02 // index, index
	lleGNUStartLength    = 0x03 // index, 4-byte length
)

// locListGNUSplit decodes the location list at off of .debug_loc.dwo for
// the DWARF 4 split unit u.
func (d *Data) locListGNUSplit(u *Unit, secs *sectionSet, off uint64, fn func(LocEntry) bool) error {
	const sec = ".debug_loc.dwo"
	if len(secs.loc) == 0 {
		return d.decodeError(sec, off, u.Index, errNoSection)
	}
	b := d.newBuf(sec, secs.loc, off, u.Index)
	as := int(u.AddrSize)
	mask := addrMask(as)
	addr := func(at int, idx uint64) (uint64, bool) {
		v, ok := indexed(secs.addr, u.AddrBase, idx, as, d.le)
		if !ok {
			b.fail(uint64(at), fmt.Errorf("address index %d out of range of .debug_addr (base 0x%x, size 0x%x)", idx, u.AddrBase, len(secs.addr)))
		}
		return v, ok
	}
	for {
		if b.err == nil && b.off == len(b.data) {
			return d.decodeError(sec, off, u.Index, errNoEnd)
		}
		at := b.off
		kind := b.u8()
		if b.err != nil {
			return b.err
		}
		var lo, hi uint64
		switch kind {
		case lleGNUEndOfList:
			return nil
		case lleGNUBaseAddressSel:
			// The entries of this format give addresses, not offsets: a
			// base changes none of them.
			if _, ok := addr(at, b.uleb()); b.err != nil || !ok {
				return b.err
			}
			continue
		case lleGNUStartEnd:
			i, j := b.uleb(), b.uleb()
			var ok bool
			if lo, ok = addr(at, i); ok {
				hi, _ = addr(at, j)
			}
		case lleGNUStartLength:
			i := b.uleb()
			n := uint64(b.u32())
			var ok bool
			if lo, ok = addr(at, i); ok {
				hi = (lo + n) & mask
			}
		default:
			b.fail(uint64(at), fmt.Errorf("unknown .debug_loc.dwo entry kind 0x%x", kind))
		}
		n := b.u16()
		expr := b.bytes(uint64(n))
		if b.err != nil {
			return b.err
		}
		if !fn(LocEntry{Low: lo, High: hi, Expr: expr}) {
			return nil
		}
	}
}
