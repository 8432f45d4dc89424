package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// skeleton is a skeleton unit of the input: the unit that stands in
// .debug_info for a split unit whose DIEs are in a .dwo file
// (-gsplit-dwarf): DWARF 5's DW_UT_skeleton, or a DWARF 4 compile unit
// with DW_AT_GNU_dwo_name (GCC's and clang's pre-standard split DWARF).
type skeleton struct {
	unit       int // index in the input's units
	dwoName    string
	compDir    string
	id         uint64 // dwo_id: the split unit's must be the same
	addrBase   uint64
	rangesBase uint64 // DW_AT_GNU_ranges_base (DWARF 4)
	lowPC      uint64
}

// dwoSections are the sections of a .dwo file the reader uses.
func dwoSections() []string {
	return []string{".debug_info.dwo", ".debug_abbrev.dwo", ".debug_str.dwo", ".debug_str_offsets.dwo",
		".debug_loclists.dwo", ".debug_loc.dwo", ".debug_rnglists.dwo"}
}

// findSkeletons returns the skeleton units of units.
func findSkeletons(d *dwarf.Data, units []dwarf.Unit) ([]skeleton, error) {
	var sks []skeleton
	r := d.NewReader()
	var e dwarf.Entry
	for i := range units {
		u := &units[i]
		// A DWARF 5 skeleton says so in its header; only DWARF 4's GNU
		// extension hides one in a compile unit's root (DW_AT_GNU_dwo_name),
		// so only those roots are read.
		if u.Part != 0 || (u.UnitType != dwarf.UTSkeleton && (u.UnitType != dwarf.UTCompile || u.Version >= 5)) {
			continue
		}
		if err := r.Seek(u); err != nil {
			return nil, err
		}
		if !r.Next(&e) {
			return nil, r.Err()
		}
		sk := skeleton{unit: i, id: u.Signature, addrBase: u.AddrBase, lowPC: u.LowPC}
		for _, f := range e.Fields {
			switch f.Attr {
			case dwarf.AttrDwoName, dwarf.AttrGNUDwoName:
				if f.Class == dwarf.ClassString {
					sk.dwoName = string(f.Bytes)
				}
			case dwarf.AttrCompDir:
				if f.Class == dwarf.ClassString {
					sk.compDir = string(f.Bytes)
				}
			case dwarf.AttrGNUDwoId:
				sk.id = f.Val
			case dwarf.AttrGNURangesBase:
				sk.rangesBase = f.Val
			}
		}
		if u.UnitType == dwarf.UTCompile && sk.dwoName == "" {
			continue // a unit with its DIEs in place
		}
		if sk.dwoName == "" {
			return nil, &dwarf.DecodeError{File: d.File(), Section: ".debug_info", Offset: u.Offset, Unit: u.Index,
				Err: fmt.Errorf("skeleton unit without DW_AT_dwo_name: its split unit cannot be found")}
		}
		sks = append(sks, sk)
	}
	return sks, nil
}

// dwoCandidates returns where to look for a skeleton's .dwo file: as the
// compiler recorded it (DW_AT_dwo_name, relative to DW_AT_comp_dir, a
// relative DW_AT_comp_dir taken from the input's folder), then in the
// input's folder.
func dwoCandidates(input string, sk *skeleton) []string {
	if filepath.IsAbs(sk.dwoName) {
		return []string{sk.dwoName, filepath.Join(filepath.Dir(input), filepath.Base(sk.dwoName))}
	}
	dir := sk.compDir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(input), dir)
	}
	c := []string{filepath.Join(dir, sk.dwoName)}
	if alt := filepath.Join(filepath.Dir(input), sk.dwoName); alt != c[0] {
		c = append(c, alt)
	}
	if alt := filepath.Join(filepath.Dir(input), filepath.Base(sk.dwoName)); alt != c[len(c)-1] && alt != c[0] {
		c = append(c, alt)
	}
	return c
}

// fileExists reports whether path names something to open.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// attachSplit attaches the .dwo file of every skeleton unit (or its part
// of the DWARF package INPUT.dwp, when there is one) and returns the
// units to walk: those of units that are not skeletons, then the split
// units, in the skeletons' order. A .dwo file that is missing, unreadable
// or without the split unit of the skeleton's dwo_id is an error naming the
// input, the skeleton unit and the file.
func (in *Input) attachSplit(units []dwarf.Unit) ([]dwarf.Unit, error) {
	d := in.DWARF
	sks, err := findSkeletons(d, units)
	if err != nil || len(sks) == 0 {
		return units, err
	}
	// A DWARF package beside the input (PROGRAM.dwp, as debuggers look
	// for it) holds the split units of all skeletons.
	var dwp *dwpFile
	if path := in.Path + ".dwp"; fileExists(path) {
		if dwp, err = openDwp(path); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		in.parts = append(in.parts, dwp.f)
		in.Split = append(in.Split, dwp.f.Path)
		in.PartStrings = append(in.PartStrings, dwp.secs[".debug_str.dwo"])
	}
	firstPart := d.Parts()
	for i := range sks {
		sk := &sks[i]
		var part dwarf.Part
		if dwp != nil {
			part, err = dwp.part(sk.id, in.secs[".debug_addr"])
		} else {
			var f *elffile.File
			if f, part, err = openDwo(in.Path, sk, in.secs[".debug_addr"]); err == nil {
				in.parts = append(in.parts, f)
				in.Split = append(in.Split, f.Path)
				in.PartStrings = append(in.PartStrings, part.Str)
			}
		}
		if err != nil {
			u := &units[sk.unit]
			return nil, fmt.Errorf("%s: skeleton unit at .debug_info+0x%x (unit %d): %w", in.Path, u.Offset, u.Index, err)
		}
		if _, err := d.Attach(part); err != nil {
			return nil, err
		}
	}
	all, err := d.Units()
	if err != nil {
		return nil, err
	}
	skel := make(map[int]bool, len(sks))
	for _, sk := range sks {
		skel[sk.unit] = true
	}
	var out []dwarf.Unit
	for i := range units {
		if !skel[i] {
			out = append(out, units[i])
		}
	}
	for i := range sks {
		sk := &sks[i]
		part := firstPart + i
		found := false
		for j := range all {
			u := all[j]
			if u.Part != part || !splitUnit(d, &u, sk) {
				continue
			}
			u.AddrBase, u.LowPC = sk.addrBase, sk.lowPC
			if u.Version < 5 {
				u.RngListsBase = sk.rangesBase
			}
			out = append(out, u)
			found = true
			break
		}
		if !found {
			su := &units[sk.unit]
			return nil, fmt.Errorf("%s: skeleton unit at .debug_info+0x%x (unit %d): %s has no split compile unit with dwo_id 0x%x",
				in.Path, su.Offset, su.Index, d.PartFile(part), sk.id)
		}
	}
	for i := range out {
		out[i].Index = i
	}
	return out, nil
}

// splitUnit reports whether u is the split compile unit of sk: DWARF 5's
// DW_UT_split_compile with sk's dwo_id, or a DWARF 4 compile unit whose
// root's DW_AT_GNU_dwo_id is sk's.
func splitUnit(d *dwarf.Data, u *dwarf.Unit, sk *skeleton) bool {
	switch u.UnitType {
	case dwarf.UTSplitCompile:
		return u.Signature == sk.id
	case dwarf.UTCompile:
		r := d.NewReader()
		r.Keep(dwarf.NewAttrSet(dwarf.AttrGNUDwoId))
		var e dwarf.Entry
		if r.Seek(u) != nil || !r.Next(&e) {
			return false
		}
		for _, f := range e.Fields {
			if f.Attr == dwarf.AttrGNUDwoId {
				return f.Val == sk.id
			}
		}
	}
	return false
}

// openDwo opens the .dwo file of sk and returns it with its sections as a
// part; addr is the input's .debug_addr, which the skeleton's
// DW_AT_addr_base indexes.
func openDwo(input string, sk *skeleton, addr []byte) (*elffile.File, dwarf.Part, error) {
	var tried []string
	for _, p := range dwoCandidates(input, sk) {
		if !fileExists(p) {
			tried = append(tried, p)
			continue
		}
		f, err := elffile.Open(p)
		if err != nil {
			return nil, dwarf.Part{}, fmt.Errorf("split DWARF object %s: %w", p, err)
		}
		secs, err := f.DebugSections(dwoSections()...)
		if err != nil {
			f.Close()
			return nil, dwarf.Part{}, fmt.Errorf("split DWARF object %s: %w", p, err)
		}
		if len(secs[".debug_info.dwo"]) == 0 {
			f.Close()
			return nil, dwarf.Part{}, fmt.Errorf("split DWARF object %s has no .debug_info.dwo", p)
		}
		return f, dwarf.Part{Kind: dwarf.PartSplit, File: f.Path,
			Info: secs[".debug_info.dwo"], Abbrev: secs[".debug_abbrev.dwo"], Str: secs[".debug_str.dwo"],
			StrOffsets: secs[".debug_str_offsets.dwo"], Addr: addr, LocLists: secs[".debug_loclists.dwo"],
			Loc: secs[".debug_loc.dwo"], RngLists: secs[".debug_rnglists.dwo"]}, nil
	}
	return nil, dwarf.Part{}, fmt.Errorf("split DWARF object %q (DW_AT_dwo_name, comp_dir %q) not found (tried %s)",
		sk.dwoName, sk.compDir, strings.Join(tried, ", "))
}
