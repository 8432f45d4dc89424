package loader

import (
	"errors"
	"fmt"

	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// dwpFile is a DWARF package (.dwp): the .dwo files of a program in one
// file, their contributions to each section found by dwo_id through
// .debug_cu_index.
type dwpFile struct {
	f    *elffile.File
	secs map[string][]byte
	// rows maps a dwo_id to its contributions: section id to [offset, size].
	rows    map[uint64]map[uint32][2]uint64
	version uint32
}

// DW_SECT_* section ids of .debug_cu_index, version 5 (DWARF 5) and 2 (the
// GNU extension for DWARF 4).
const (
	sectInfo       = 1
	sectAbbrev     = 3
	sect5LocLists  = 5
	sect2Loc       = 5
	sectStrOffsets = 6
	sect5RngLists  = 8
)

// openDwp opens the DWARF package at path and reads its unit index.
func openDwp(path string) (*dwpFile, error) {
	f, err := elffile.Open(path)
	if err != nil {
		return nil, err
	}
	p := &dwpFile{f: f}
	if err := p.read(); err != nil {
		f.Close()
		return nil, fmt.Errorf("DWARF package %s: %w", path, err)
	}
	return p, nil
}

func (p *dwpFile) read() error {
	secs, err := p.f.DebugSections(append(dwoSections(), ".debug_cu_index")...)
	if err != nil {
		return err
	}
	p.secs = secs
	idx := secs[".debug_cu_index"]
	u32 := p.f.ByteOrder.Uint32
	if len(idx) < 16 {
		return errors.New(".debug_cu_index: truncated header")
	}
	p.version = u32(idx) & 0xffff
	if p.version != 2 && p.version != 5 {
		return fmt.Errorf(".debug_cu_index: unsupported version %d", p.version)
	}
	cols, units, slots := uint64(u32(idx[4:])), uint64(u32(idx[8:])), uint64(u32(idx[12:]))
	// Hash table (8 bytes a slot), index table (4), the column header (4
	// a column), then offsets and sizes (4 a cell each).
	need := 16 + slots*12 + cols*4 + 2*units*cols*4
	if cols > 64 || units > uint64(len(idx)) || slots > uint64(len(idx)) || need > uint64(len(idx)) {
		return fmt.Errorf(".debug_cu_index: %d columns, %d units, %d slots do not fit in %d bytes", cols, units, slots, len(idx))
	}
	sigs, rowsAt := idx[16:], idx[16+slots*8:]
	header := idx[16+slots*12:]
	offs := header[cols*4:]
	sizes := offs[units*cols*4:]
	p.rows = make(map[uint64]map[uint32][2]uint64)
	for s := uint64(0); s < slots; s++ {
		row := uint64(u32(rowsAt[s*4:]))
		if row == 0 {
			continue
		}
		if row > units {
			return fmt.Errorf(".debug_cu_index: slot %d names row %d of %d", s, row, units)
		}
		sig := p.f.ByteOrder.Uint64(sigs[s*8:])
		m := make(map[uint32][2]uint64, cols)
		for c := uint64(0); c < cols; c++ {
			cell := ((row-1)*cols + c) * 4
			m[u32(header[c*4:])] = [2]uint64{uint64(u32(offs[cell:])), uint64(u32(sizes[cell:]))}
		}
		p.rows[sig] = m
	}
	return nil
}

// part returns the contributions of the unit with dwo_id id as a part.
func (p *dwpFile) part(id uint64, addr []byte) (dwarf.Part, error) {
	row, ok := p.rows[id]
	if !ok {
		return dwarf.Part{}, fmt.Errorf("DWARF package %s has no unit with dwo_id 0x%x", p.f.Path, id)
	}
	slice := func(name string, sect uint32) ([]byte, error) {
		c, ok := row[sect]
		if !ok {
			return nil, nil
		}
		b := p.secs[name]
		if c[0] > uint64(len(b)) || c[1] > uint64(len(b))-c[0] {
			return nil, fmt.Errorf("DWARF package %s: the contribution [0x%x, +0x%x) of dwo_id 0x%x runs past %s (size 0x%x)",
				p.f.Path, c[0], c[1], id, name, len(b))
		}
		return b[c[0] : c[0]+c[1] : c[0]+c[1]], nil
	}
	part := dwarf.Part{Kind: dwarf.PartSplit, File: p.f.Path, Str: p.secs[".debug_str.dwo"], Addr: addr}
	var err error
	for _, s := range []struct {
		name string
		sect uint32
		dst  *[]byte
	}{
		{".debug_info.dwo", sectInfo, &part.Info},
		{".debug_abbrev.dwo", sectAbbrev, &part.Abbrev},
		{".debug_str_offsets.dwo", sectStrOffsets, &part.StrOffsets},
	} {
		if *s.dst, err = slice(s.name, s.sect); err != nil {
			return part, err
		}
	}
	if p.version == 5 {
		if part.LocLists, err = slice(".debug_loclists.dwo", sect5LocLists); err != nil {
			return part, err
		}
		if part.RngLists, err = slice(".debug_rnglists.dwo", sect5RngLists); err != nil {
			return part, err
		}
	} else if part.Loc, err = slice(".debug_loc.dwo", sect2Loc); err != nil {
		return part, err
	}
	if len(part.Info) == 0 {
		return part, fmt.Errorf("DWARF package %s: the unit with dwo_id 0x%x has no .debug_info.dwo contribution", p.f.Path, id)
	}
	return part, nil
}
