package loader

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// supLink is what an input says of its supplementary object file (the
// common file of dwz -m): .gnu_debugaltlink (a path and the file's
// build-id) or DWARF 5's .debug_sup (a path and a checksum, dwz writes the
// build-id there too).
type supLink struct {
	section string // the section that names the file
	name    string
	id      []byte // build-id or checksum; empty when the link gives none
}

// debugSupLookup is where distributions install dwz's common files.
const debugSupLookup = "/usr/lib/debug"

// readSupLink returns the input's supplementary-file link, nil when it has
// none.
func readSupLink(f *elffile.File) (*supLink, error) {
	if s := f.Section(".gnu_debugaltlink"); s != nil {
		data, err := f.SectionData(s)
		if err != nil {
			return nil, fmt.Errorf(".gnu_debugaltlink: %w", err)
		}
		i := bytes.IndexByte(data, 0)
		if i <= 0 {
			return nil, fmt.Errorf(".gnu_debugaltlink: no file name")
		}
		return &supLink{section: ".gnu_debugaltlink", name: string(data[:i]), id: data[i+1:]}, nil
	}
	if s := f.Section(".debug_sup"); s != nil {
		data, err := f.SectionData(s)
		if err != nil {
			return nil, fmt.Errorf(".debug_sup: %w", err)
		}
		name, sum, isSup, err := parseDebugSup(data, f.ByteOrder.Uint16)
		if err != nil {
			return nil, err
		}
		if isSup {
			return nil, nil // the input is itself a supplementary file
		}
		return &supLink{section: ".debug_sup", name: name, id: sum}, nil
	}
	return nil, nil
}

// parseDebugSup decodes a .debug_sup section: version (2), is_supplementary,
// the file name and a ULEB-sized checksum.
func parseDebugSup(data []byte, u16 func([]byte) uint16) (name string, sum []byte, isSup bool, err error) {
	if len(data) < 4 {
		return "", nil, false, errors.New(".debug_sup: truncated header")
	}
	if v := u16(data); v != 5 && v != 2 {
		return "", nil, false, fmt.Errorf(".debug_sup: unsupported version %d", v)
	}
	isSup = data[2] != 0
	rest := data[3:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return "", nil, false, errors.New(".debug_sup: unterminated file name")
	}
	name, rest = string(rest[:i]), rest[i+1:]
	var n uint64
	var shift uint
	for k := 0; ; k++ {
		if k >= len(rest) || shift > 63 {
			return "", nil, false, errors.New(".debug_sup: truncated checksum length")
		}
		n |= uint64(rest[k]&0x7f) << shift
		shift += 7
		if rest[k] < 0x80 {
			rest = rest[k+1:]
			break
		}
	}
	if n > uint64(len(rest)) {
		return "", nil, false, fmt.Errorf(".debug_sup: checksum of %d bytes runs past the section", n)
	}
	return name, rest[:n], isSup, nil
}

// fileID returns a supplementary file's identity as a link names it: its
// .debug_sup checksum for a .debug_sup link, else its GNU build-id.
func fileID(f *elffile.File, section string) ([]byte, error) {
	if section == ".debug_sup" {
		if s := f.Section(".debug_sup"); s != nil {
			data, err := f.SectionData(s)
			if err != nil {
				return nil, fmt.Errorf(".debug_sup: %w", err)
			}
			_, sum, _, err := parseDebugSup(data, f.ByteOrder.Uint16)
			return sum, err
		}
	}
	return buildID(f)
}

// buildID returns the descriptor of the file's NT_GNU_BUILD_ID note, nil
// when it has none.
func buildID(f *elffile.File) ([]byte, error) {
	desc, _, err := findNote(f, "GNU", ntGNUBuildID)
	return desc, err
}

// ntGNUBuildID is NT_GNU_BUILD_ID.
const ntGNUBuildID = 3

// supCandidates returns where to look for the file link names, in order:
// the path as given (relative to the input's folder), then the usual
// places of distributions' debuginfo: /usr/lib/debug/.dwz/NAME and the
// build-id tree.
func supCandidates(input string, link *supLink) []string {
	var c []string
	name := link.name
	if filepath.IsAbs(name) {
		c = append(c, name)
	} else {
		c = append(c, filepath.Join(filepath.Dir(input), name))
	}
	base := filepath.Base(name)
	if i := strings.LastIndex(name, "/.dwz/"); i >= 0 {
		base = name[i+len("/.dwz/"):]
	}
	c = append(c, filepath.Join(debugSupLookup, ".dwz", base))
	if len(link.id) >= 2 && link.section == ".gnu_debugaltlink" {
		h := hex.EncodeToString(link.id)
		c = append(c, filepath.Join(debugSupLookup, ".build-id", h[:2], h[2:]+".debug"))
	}
	return c
}

// openSupplement finds and opens the supplementary file of input (given is
// --dwarf-supplement's file, "" to look for it), checks it is the one the
// link names, and returns it with its DWARF sections. firstUnit is the
// offset of the first unit that needs it, for the error when none is
// found.
func openSupplement(input string, link *supLink, given string, firstUnit uint64) (*elffile.File, *dwarf.Part, error) {
	paths := supCandidates(input, link)
	if given != "" {
		paths = []string{given}
	}
	var tried []string
	for _, p := range paths {
		if given == "" {
			if _, err := os.Stat(p); err != nil {
				tried = append(tried, p+" (absent)")
				continue
			}
		}
		f, err := elffile.Open(p)
		if err != nil {
			if given != "" {
				return nil, nil, fmt.Errorf("supplementary file %s: %w", p, err)
			}
			tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		id, err := fileID(f, link.section)
		switch {
		case err != nil || len(link.id) == 0 || bytes.Equal(id, link.id):
		case len(id) == 0:
			err = fmt.Errorf("it has no id, %s names %x", link.section, link.id)
		default:
			err = fmt.Errorf("its id %x is not the %x %s names", id, link.id, link.section)
		}
		if err != nil {
			f.Close()
			if given != "" {
				return nil, nil, fmt.Errorf("supplementary file %s: %w", p, err)
			}
			tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		secs, err := f.DebugSections(".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str")
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("supplementary file %s: %w", p, err)
		}
		return f, &dwarf.Part{Kind: dwarf.PartSupplement, Info: secs[".debug_info"], Abbrev: secs[".debug_abbrev"],
			Str: secs[".debug_str"], LineStr: secs[".debug_line_str"], File: p}, nil
	}
	return nil, nil, fmt.Errorf("the unit at .debug_info+0x%x refers to the supplementary file %q (%s, id %x), "+
		"which was not found (tried %s): give it with --dwarf-supplement",
		firstUnit, link.name, link.section, link.id, strings.Join(tried, ", "))
}

// altForms are the forms that point into a supplementary file.
var altForms = [...]dwarf.Form{dwarf.FormGNURefAlt, dwarf.FormGNUStrpAlt, dwarf.FormRefSup4, dwarf.FormRefSup8, dwarf.FormStrpSup}

// firstAltUnit returns the offset of the first unit whose abbreviations use
// a form that points into a supplementary file, and whether there is one.
func firstAltUnit(d *dwarf.Data, units []dwarf.Unit) (uint64, bool, error) {
	for i := range units {
		for _, form := range altForms {
			uses, err := d.AbbrevUsesForm(&units[i], form)
			if err != nil {
				return 0, false, err
			}
			if uses {
				return units[i].Offset, true, nil
			}
		}
	}
	return 0, false, nil
}

// supplementUnits returns the input's own units and the supplement's units
// they need, in .debug_info order: those they import (DW_TAG_imported_unit)
// or refer into (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8), directly or
// through other units so needed. The supplement holds the partial units of
// every program dwz -m processed; only these are the input's.
func supplementUnits(d *dwarf.Data, units []dwarf.Unit) ([]dwarf.Unit, error) {
	start := d.InputInfoSize()
	want := make([]bool, len(units))
	var queue []int
	for i := range units {
		if units[i].Part == 0 {
			want[i] = true
			queue = append(queue, i)
		}
	}
	r := d.NewReader()
	var e dwarf.Entry
	for len(queue) > 0 {
		u := &units[queue[0]]
		queue = queue[1:]
		if err := r.Seek(u); err != nil {
			return nil, err
		}
		for r.Next(&e) {
			for _, f := range e.Fields {
				if f.Class != dwarf.ClassReference || (f.Val >= u.Offset && f.Val < u.End) || f.Val < start {
					continue
				}
				j := dwarf.FindUnit(units, f.Val)
				if j < 0 {
					return nil, &dwarf.DecodeError{File: d.File(), Section: ".debug_info", Offset: e.Offset, Unit: u.Index,
						Err: fmt.Errorf("%s %s refers to 0x%x, outside every unit of the supplementary file", f.Attr, f.Form, f.Val-start)}
				}
				if !want[j] {
					want[j] = true
					queue = append(queue, j)
				}
			}
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	var out []dwarf.Unit
	for i := range units {
		if want[i] {
			u := units[i]
			u.Index = len(out)
			out = append(out, u)
		}
	}
	return out, nil
}

// attachSupplement attaches the supplementary file the input's DWARF
// needs, if any, and returns the units to walk: the input's and the
// supplement's it needs (see supplementUnits). An input that uses forms
// pointing into a supplement but names none needs opts.Supplement; without
// it, they fail to decode.
func (in *Input) attachSupplement(units []dwarf.Unit, opts OpenOptions) ([]dwarf.Unit, error) {
	f, d := in.ELF, in.DWARF
	link, err := readSupLink(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	if link == nil && opts.Supplement == "" {
		return units, nil
	}
	first, uses, err := firstAltUnit(d, units)
	if err != nil {
		return nil, err
	}
	if !uses && opts.Supplement == "" {
		return units, nil // a link nothing uses
	}
	if link == nil {
		link = &supLink{section: "--dwarf-supplement"}
	}
	supELF, part, err := openSupplement(f.Path, link, opts.Supplement, first)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	in.parts = append(in.parts, supELF)
	part.File = supELF.Path
	n, err := d.Attach(*part)
	if err != nil {
		return nil, err
	}
	if units, err = d.Units(); err != nil {
		return nil, err
	}
	in.Supplement = supELF.Path
	str, lineStr := d.PartStrings(n)
	in.PartStrings = append(in.PartStrings, str, lineStr)
	return supplementUnits(d, units)
}
