package elffile

// relocEntrySize is the size of one entry of a REL or RELA section.
func (f *File) relocEntrySize(rela bool) uint64 {
	switch {
	case f.Class == Class64 && rela:
		return rela64Size
	case f.Class == Class64:
		return rel64Size
	case rela:
		return rela32Size
	}
	return rel32Size
}

// relocate applies the relocations of rs (SHT_REL or SHT_RELA) to dst, the
// private copy of target's data, with sections at address 0. vals holds the
// value of each symbol of the table rs links to (see symbolValues).
func (f *File) relocate(dst []byte, target, rs *Section, vals []uint64) error {
	if f.Machine == EM_MIPS && f.Class == Class64 {
		return f.sectionErr(target, 0, nil, "relocations from %s: 64-bit MIPS relocations are not supported", rs.displayName())
	}
	rela := rs.Type == SHT_RELA
	esz := f.relocEntrySize(rela)
	if rs.Entsize != esz && rs.Entsize != 0 {
		return f.sectionErr(rs, 0, nil, "sh_entsize %d is not the %s relocation entry size %d", rs.Entsize, f.Class, esz)
	}
	if rs.Flags&SHF_COMPRESSED != 0 || f.pages.fh == nil {
		data, err := f.SectionData(rs)
		if err != nil {
			return err
		}
		return f.applyRelocs(dst, target, rs, vals, data, 0)
	}
	if rs.Size%esz != 0 {
		return f.sectionErr(rs, 0, nil, "size 0x%x is not a multiple of the relocation entry size %d", rs.Size, esz)
	}
	// Read the entries in chunks rather than through the mapping: they are
	// read once, and would stay resident.
	buf := make([]byte, min(rs.Size, relocChunk/esz*esz))
	for first := uint64(0); first < rs.Size; first += uint64(len(buf)) {
		chunk := buf[:min(uint64(len(buf)), rs.Size-first)]
		if _, err := f.pages.fh.ReadAt(chunk, int64(rs.Offset+first)); err != nil {
			return f.sectionErr(rs, first, err, "reading relocations")
		}
		if err := f.applyRelocs(dst, target, rs, vals, chunk, first/esz); err != nil {
			return err
		}
	}
	return nil
}

// relocChunk is how many bytes of relocation entries relocate reads at once.
const relocChunk = 256 << 10

// applyRelocs applies data, entries first.. of rs, to dst (see relocate).
func (f *File) applyRelocs(dst []byte, target, rs *Section, vals []uint64, data []byte, first uint64) error {
	rela := rs.Type == SHT_RELA
	esz := f.relocEntrySize(rela)
	if uint64(len(data))%esz != 0 {
		return f.sectionErr(rs, 0, nil, "size 0x%x is not a multiple of the relocation entry size %d", len(data), esz)
	}
	o, is64 := f.order, f.Class == Class64
	n := uint64(len(data)) / esz
	size := uint64(len(dst))
	lastTyp, how := ^uint32(0), relocHow{}
	for j := range n {
		i := first + j // the entry's index in rs, for errors
		e := data[j*esz:]
		var off, sym uint64
		var typ uint32
		var addend uint64
		if is64 {
			off = o.u64(e)
			info := o.u64(e[8:])
			sym, typ = info>>32, uint32(info)
			if rela {
				addend = o.u64(e[16:])
			}
		} else {
			off = uint64(o.u32(e))
			info := o.u32(e[4:])
			sym, typ = uint64(info>>8), info&0xff
			if rela {
				addend = uint64(int64(int32(o.u32(e[8:]))))
			}
		}
		if typ != lastTyp {
			lastTyp, how = typ, classifyReloc(f.Machine, typ)
		}
		switch how.op {
		case opNone:
			continue
		case opUnknown:
			return f.sectionErr(target, off, nil, "unsupported %s relocation type %d (%s entry %d)", machineName(f.Machine), typ, rs.displayName(), i)
		}
		if sym >= uint64(len(vals)) {
			return f.sectionErr(target, off, nil, "relocation symbol index %d out of range (%d symbols; %s entry %d)", sym, len(vals), rs.displayName(), i)
		}
		sa := vals[sym] + addend
		if how.width == 0 {
			if err := f.relocULEB(dst, off, how.op, sa, rela); err != nil {
				return f.sectionErr(target, off, nil, "%s relocation type %d (%s entry %d): %s", machineName(f.Machine), typ, rs.displayName(), i, err)
			}
			continue
		}
		w := uint64(how.width)
		if off > size || size-off < w {
			return f.sectionErr(target, off, nil, "%d-byte relocation (%s entry %d) lies outside the section (0x%x bytes)", w, rs.displayName(), i, size)
		}
		word := dst[off : off+w]
		if rela && how.op == opAbs { // the common case: the word is overwritten
			o.putUint(word, int(w), sa)
			continue
		}
		in := o.uint(word, int(w))
		if !rela { // REL: the addend is the word in place
			sa += in
		}
		var v uint64
		switch how.op {
		case opAbs:
			v = sa
		case opPCRel:
			v = sa - off
		case opDTPRel:
			v = sa - 0x8000
		case opAdd:
			v = in + sa
		case opSub:
			v = in - sa
		case opSet6:
			v = in&0xc0 | sa&0x3f
		case opSub6:
			v = in&0xc0 | (in-sa)&0x3f
		}
		o.putUint(word, int(w), v)
	}
	return nil
}

// relocULEB applies a ULEB128 relocation: the value at off is rewritten in
// the same number of bytes it occupies (as the assembler reserved them),
// truncated to the bits those bytes hold.
func (f *File) relocULEB(dst []byte, off uint64, op relocOp, sa uint64, rela bool) error {
	if !rela {
		return errString("ULEB128 relocation in a REL section")
	}
	if off >= uint64(len(dst)) {
		return errString("lies outside the section")
	}
	b := dst[off:]
	n, in := 0, uint64(0)
	for {
		if n == len(b) || n == 10 {
			return errString("no complete ULEB128 at the place")
		}
		c := b[n]
		in |= uint64(c&0x7f) << (7 * n) // bits past 64 drop out
		n++
		if c&0x80 == 0 {
			break
		}
	}
	v := sa
	if op == opSubULEB {
		v = in - sa
	}
	for i := range n - 1 {
		b[i] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	b[n-1] = byte(v & 0x7f)
	return nil
}

// errString is a constant-message error for relocULEB's callers to wrap.
type errString string

func (e errString) Error() string { return string(e) }

// symbolValues returns S for each symbol of the table st, indexed by symbol
// number: st_value, which in a relocatable object is the offset in the
// symbol's section. Undefined and common symbols have no place and give 0.
func (f *File) symbolValues(st *Section) ([]uint64, error) {
	t, err := f.symbolTable(st)
	if err != nil {
		return nil, err
	}
	vals := make([]uint64, t.count) // bounded by the section size
	o := f.order
	for i := range vals {
		b := t.data[uint64(i)*t.entsize:]
		var sec uint16
		var v uint64
		if f.Class == Class64 {
			sec, v = o.u16(b[6:]), o.u64(b[8:])
		} else {
			sec, v = o.u16(b[14:]), uint64(o.u32(b[4:]))
		}
		if sec != SHN_UNDEF && sec != SHN_COMMON {
			vals[i] = v
			if int(sec) < len(f.layout) {
				vals[i] += f.layout[sec]
			}
		}
	}
	return vals, nil
}
