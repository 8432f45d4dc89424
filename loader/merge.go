package loader

import (
	"bytes"
	"fmt"

	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// LTONote is what an input's Linux LTO_INFO ELF note says.
type LTONote int8

const (
	LTONoteAbsent LTONote = iota // no such note
	LTONoteOff                   // the note says 0: not an LTO build
	LTONoteOn                    // the note says non-zero: an LTO build
)

// linuxNoteLTOInfo is LINUX_ELFNOTE_LTO_INFO (linux/elfnote-lto.h).
const linuxNoteLTOInfo = 0x101

// shtNote is SHT_NOTE.
const shtNote = 7

// mergeUnits decides, as pahole's cus__merging_cu does, whether the units
// of the input are merged into one (the spec's "LTO input"): the first
// Linux LTO_INFO note decides when there is one; without it, any
// abbreviation of any unit using DW_FORM_ref_addr, the form units of an
// LTO link refer to each other with, makes a merge. Unlike pahole (which
// cannot read dwz's output), DWARF 5 partial units (DW_UT_partial, which
// dwz writes) make a merge even when the note says 0.
func mergeUnits(f *elffile.File, d *dwarf.Data, units []dwarf.Unit) (bool, LTONote, error) {
	note, err := ltoNote(f)
	if err != nil {
		return false, note, err
	}
	if note == LTONoteOff && hasPartialUnits(units) {
		// dwz's partial units, which the compile units import and refer
		// into: the units are one whatever the note says (a dwz'd kernel).
		return true, note, nil
	}
	if note != LTONoteAbsent {
		return note == LTONoteOn, note, nil
	}
	seen := map[uint64]bool{}
	for i := range units {
		u := &units[i]
		if seen[u.AbbrevOffset] {
			continue
		}
		seen[u.AbbrevOffset] = true
		uses, err := d.AbbrevUsesForm(u, dwarf.FormRefAddr)
		if err != nil {
			return false, note, err
		}
		if uses {
			return true, note, nil
		}
	}
	return false, note, nil
}

// ltoNote finds the first Linux LTO_INFO note; pahole reads the
// descriptor's first int.
func ltoNote(f *elffile.File) (LTONote, error) {
	desc, found, err := findNote(f, "Linux", linuxNoteLTOInfo)
	switch {
	case err != nil:
		return LTONoteAbsent, err
	case !found:
		return LTONoteAbsent, nil
	case bytes.Count(desc[:min(len(desc), 4)], []byte{0}) == min(len(desc), 4):
		return LTONoteOff, nil
	}
	return LTONoteOn, nil
}

// findNote returns the descriptor of the first note of owner and type typ
// in the SHT_NOTE sections, read as elfutils' gelf_getnote reads them:
// name and descriptor padded to 4 bytes, or to 8 in a section aligned to
// 8; a malformed note ends its section.
func findNote(f *elffile.File, owner string, typ uint32) (desc []byte, found bool, err error) {
	order := f.ByteOrder
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type != shtNote {
			continue
		}
		data, err := f.SectionData(s)
		if err != nil {
			return nil, false, fmt.Errorf("notes: %w", err)
		}
		align := uint64(4)
		if s.Addralign == 8 {
			align = 8
		}
		pad := func(n uint64) uint64 { return (n + align - 1) &^ (align - 1) }
		for off := uint64(0); off+12 <= uint64(len(data)); {
			namesz := uint64(order.Uint32(data[off:]))
			descsz := uint64(order.Uint32(data[off+4:]))
			name := off + 12
			d := pad(name + namesz)
			if namesz > uint64(len(data)) || descsz > uint64(len(data)) || d+descsz > uint64(len(data)) {
				break
			}
			if order.Uint32(data[off+8:]) == typ && string(bytes.TrimRight(data[name:name+namesz], "\x00")) == owner {
				return data[d : d+descsz], true, nil
			}
			off = pad(d + descsz)
		}
	}
	return nil, false, nil
}

// hasPartialUnits reports whether a unit header says DW_UT_partial.
func hasPartialUnits(units []dwarf.Unit) bool {
	for i := range units {
		if units[i].UnitType == dwarf.UTPartial {
			return true
		}
	}
	return false
}
