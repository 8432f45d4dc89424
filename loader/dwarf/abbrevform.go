package dwarf

// AbbrevUsesForm reports whether the abbreviation table of unit u declares
// an attribute of form f. It reads the table's declarations only, without
// preparing them for decoding, and stops at the first match. pahole asks it
// of DW_FORM_ref_addr for every unit to decide whether to merge the units
// of an input (the spec's "LTO input").
func (d *Data) AbbrevUsesForm(u *Unit, f Form) (bool, error) {
	b := d.newBuf(".debug_abbrev", d.abbrev, u.AbbrevOffset, u.Index)
	for b.err == nil {
		if code := b.uleb(); code == 0 || b.err != nil {
			break
		}
		b.uleb() // tag
		b.u8()   // children
		for b.err == nil {
			attr, form := b.uleb(), Form(b.uleb())
			if attr == 0 && form == 0 {
				break
			}
			if form == f {
				return true, nil
			}
			if form == FormImplicitConst {
				b.sleb()
			}
		}
	}
	if b.err != nil {
		return false, b.err
	}
	return false, nil
}
