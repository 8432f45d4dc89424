package elffile

// Symbols returns the entries of the symbol table (SHT_SYMTAB, not
// .dynsym), without the null entry at index 0: Symbols()[i] is symbol table
// index i+1, as with debug/elf. It is an error if there is no symbol table.
//
// The names are substrings of one copy of the string table, so they stay
// valid after Close. Each call decodes the table anew; keep the result.
func (f *File) Symbols() ([]Symbol, error) {
	if f.closed {
		return nil, f.errClosed()
	}
	st := f.symtabSection()
	if st == nil {
		return nil, &FormatError{File: f.Path, Msg: "no symbol table (SHT_SYMTAB section)"}
	}
	t, err := f.symbolTable(st)
	if err != nil {
		return nil, err
	}
	strs, err := f.linkedStrings(st)
	if err != nil {
		return nil, err
	}
	var shndx []byte // SHT_SYMTAB_SHNDX data, found on first use
	syms := make([]Symbol, t.count-min(t.count, 1))
	o, is64, nsec := f.order, f.Class == Class64, uint32(len(f.Sections))
	for i := range syms {
		// Fields are stored in place: copying a whole Symbol into the
		// slice would cost a bulk write barrier per symbol while the GC runs.
		sym := &syms[i]
		idx := uint64(i) + 1
		b := t.data[idx*t.entsize:]
		var name uint32
		var sec uint16
		if is64 {
			name = o.u32(b)
			sym.Info, sym.Other, sec = b[4], b[5], o.u16(b[6:])
			sym.Value, sym.Size = o.u64(b[8:]), o.u64(b[16:])
		} else {
			name = o.u32(b)
			sym.Value, sym.Size = uint64(o.u32(b[4:])), uint64(o.u32(b[8:]))
			sym.Info, sym.Other, sec = b[12], b[13], o.u16(b[14:])
		}
		if name != 0 {
			n, ok := cString(strs, uint64(name))
			if !ok {
				return nil, f.sectionErr(st, idx*t.entsize, nil, "symbol %d: st_name 0x%x outside the string table (0x%x bytes) or unterminated", idx, name, len(strs))
			}
			sym.Name = n
		}
		sym.Section = uint32(sec)
		switch {
		case sec == SHN_XINDEX:
			if shndx == nil {
				if shndx, err = f.symtabShndx(st, t.count); err != nil {
					return nil, err
				}
			}
			sym.Section = o.u32(shndx[idx*4:])
			if sym.Section >= nsec {
				return nil, f.sectionErr(st, idx*t.entsize, nil, "symbol %d: extended section index %d out of range (%d sections)", idx, sym.Section, nsec)
			}
		case sec < SHN_LORESERVE && uint32(sec) >= nsec:
			return nil, f.sectionErr(st, idx*t.entsize, nil, "symbol %d: section index %d out of range (%d sections)", idx, sec, nsec)
		}
	}
	return syms, nil
}

// symtabSection returns the first SHT_SYMTAB section, or nil.
func (f *File) symtabSection() *Section {
	for i := range f.Sections {
		if f.Sections[i].Type == SHT_SYMTAB {
			return &f.Sections[i]
		}
	}
	return nil
}

// symTable is a validated symbol table: count entries of entsize bytes.
type symTable struct {
	data    []byte
	entsize uint64
	count   uint64
}

// symbolTable checks the entry size of st (SHT_SYMTAB or SHT_DYNSYM) and
// returns its data.
func (f *File) symbolTable(st *Section) (symTable, error) {
	if st.Type != SHT_SYMTAB && st.Type != SHT_DYNSYM {
		return symTable{}, f.sectionErr(st, 0, nil, "section type %d is not a symbol table", st.Type)
	}
	want := uint64(sym32Size)
	if f.Class == Class64 {
		want = sym64Size
	}
	if st.Entsize != want && st.Entsize != 0 {
		return symTable{}, f.sectionErr(st, 0, nil, "sh_entsize %d is not the %s symbol size %d", st.Entsize, f.Class, want)
	}
	data, err := f.SectionData(st)
	if err != nil {
		return symTable{}, err
	}
	if uint64(len(data))%want != 0 {
		return symTable{}, f.sectionErr(st, 0, nil, "size 0x%x is not a multiple of the symbol size %d", len(data), want)
	}
	return symTable{data: data, entsize: want, count: uint64(len(data)) / want}, nil
}

// linkedStrings returns a copy of the string table that st links to.
func (f *File) linkedStrings(st *Section) (string, error) {
	if uint64(st.Link) >= uint64(len(f.Sections)) {
		return "", f.sectionErr(st, 0, nil, "sh_link %d to the string table is out of range (%d sections)", st.Link, len(f.Sections))
	}
	ss := &f.Sections[st.Link]
	if ss.Type != SHT_STRTAB {
		return "", f.sectionErr(st, 0, nil, "sh_link %d is section %s of type %d, not a string table", st.Link, ss.displayName(), ss.Type)
	}
	data, err := f.SectionData(ss)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// symtabShndx returns the SHT_SYMTAB_SHNDX section data for st, checked to
// hold an entry for each of its count symbols.
func (f *File) symtabShndx(st *Section, count uint64) ([]byte, error) {
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type != SHT_SYMTAB_SHNDX || s.Link != uint32(st.Index) {
			continue
		}
		data, err := f.SectionData(s)
		if err != nil {
			return nil, err
		}
		if uint64(len(data))/4 < count {
			return nil, f.sectionErr(s, 0, nil, "has %d entries for %d symbols", len(data)/4, count)
		}
		return data, nil
	}
	return nil, f.sectionErr(st, 0, nil, "a symbol uses SHN_XINDEX but no SHT_SYMTAB_SHNDX section links to the table")
}
