package elffile

// layoutBase is where LayOut places the first allocated section: above
// zero, so that no laid-out address equals a section-relative symbol value
// of 0.
const layoutBase = 0x10000

// LayOut gives each allocated section of a relocatable file (ET_REL) a
// made-up load address, one after the other with their alignment, the way
// elfutils' offline reporting does for kernel modules: relocations applied
// afterwards by DebugSections then resolve to these addresses, and
// LoadAddr returns them. Section.Addr is left as the file says. Other file
// types are left alone.
func (f *File) LayOut() {
	if f.Type != ET_REL || f.layout != nil {
		return
	}
	f.layout = make([]uint64, len(f.Sections))
	addr := uint64(layoutBase)
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Flags&SHF_ALLOC == 0 {
			continue
		}
		if a := s.Addralign; a > 1 && a&(a-1) == 0 {
			addr = (addr + a - 1) &^ (a - 1)
		}
		f.layout[i] = addr
		addr += s.Size
	}
}

// LoadAddr is the address of section i: LayOut's for a laid-out
// relocatable file, else the section header's.
func (f *File) LoadAddr(i int) uint64 {
	if i < len(f.layout) {
		return f.layout[i]
	}
	if i < len(f.Sections) {
		return f.Sections[i].Addr
	}
	return 0
}
