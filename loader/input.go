package loader

import (
	"fmt"

	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// Input is an opened ELF file with its DWARF ready to walk.
type Input struct {
	Path  string
	ELF   *elffile.File
	DWARF *dwarf.Data
	Units []dwarf.Unit
	// The DWARF string sections (names alias them) and the size of
	// .debug_info, for sizing buffers.
	DebugStr, DebugLineStr []byte
	InfoSize               int
	// Supplement is the supplementary object file (dwz -m's common file)
	// the DWARF points into, "" when none; Split the split DWARF objects
	// (.dwo, .dwp) its skeleton units stand for. PartStrings are their
	// string sections, which names alias too.
	Supplement  string
	Split       []string
	PartStrings [][]byte
	// Merge says the units are walked as one, as pahole merges the units
	// of an LTO link (see mergeUnits); Note is the Linux LTO_INFO note
	// that decided it, if any.
	Merge bool
	Note  LTONote
	// Groups, for an input with partial units (dwz's), lists for each
	// compile unit the indexes in Units of the partial units it needs, in
	// the order they are walked, and then its own: the unit is walked
	// with them as one (Walker.WalkImporting). Nil for other inputs and
	// for a merge.
	Groups [][]int
	// PartRefs, by unit, are the top-level DIEs that first refer into
	// other units, for the walk of Groups.
	PartRefs [][]PartRef

	// KeepInfo keeps a relocated .debug_info whole until Close, where
	// ReleaseInfoBefore and ReleaseDebug would discard it (see
	// ReleaseInfoBefore); for tests that check nothing reads it then.
	KeepInfo bool

	parts      []*elffile.File // the attached files, open until Close
	info       []byte
	infoCopied bool              // info is a relocated copy (elffile.File.IsCopy)
	secs       map[string][]byte // the debug sections, for ReleaseDebug
	released   int               // .debug_info before this offset is released
	// How far .debug_abbrev and the location section are released.
	abbrevReleased, locReleased int
}

// debugSectionNames are the sections the DWARF reader uses.
func debugSectionNames() []string {
	return []string{
		".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
		".debug_addr", ".debug_loclists", ".debug_loc", ".debug_rnglists", ".debug_ranges",
	}
}

// OpenOptions are the choices of OpenWith.
type OpenOptions struct {
	// Supplement names the supplementary object file of a dwz -m input,
	// instead of looking for the one its .gnu_debugaltlink or .debug_sup
	// names (see openSupplement).
	Supplement string
	// Limits bound the input's decompression; the zero value means
	// elffile.DefaultLimits.
	Limits elffile.Limits
}

// Open maps path, extracts (decompresses, relocates) its debug sections and
// reads the unit headers, with elffile's default limits on decompression.
func Open(path string) (*Input, error) { return OpenWith(path, OpenOptions{}) }

// OpenWith is Open with options. An input whose DWARF points into a
// supplementary file is opened with it, or not at all: an error names the
// unit that needs it and where it was looked for.
func OpenWith(path string, opts OpenOptions) (*Input, error) {
	lim := opts.Limits
	if lim == (elffile.Limits{}) {
		lim = elffile.DefaultLimits()
	}
	f, err := elffile.OpenLimited(path, lim)
	if err != nil {
		return nil, err
	}
	in, err := newInput(f, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

func newInput(f *elffile.File, opts OpenOptions) (*Input, error) {
	// Kernel modules: place sections at made-up addresses before relocating
	// DWARF, as pahole's elfutils does (spec §2.9 h).
	f.LayOut()
	secs, err := f.DebugSections(debugSectionNames()...)
	if err != nil {
		return nil, err
	}
	if len(secs[".debug_info"]) == 0 {
		return nil, fmt.Errorf("%s: no .debug_info section: the file has no DWARF (build with -g / CONFIG_DEBUG_INFO)", f.Path)
	}
	d, err := dwarf.New(dwarf.Sections{
		Info:       secs[".debug_info"],
		Abbrev:     secs[".debug_abbrev"],
		Str:        secs[".debug_str"],
		LineStr:    secs[".debug_line_str"],
		StrOffsets: secs[".debug_str_offsets"],
		Addr:       secs[".debug_addr"],
		LocLists:   secs[".debug_loclists"],
		Loc:        secs[".debug_loc"],
		RngLists:   secs[".debug_rnglists"],
		Ranges:     secs[".debug_ranges"],
		ByteOrder:  f.ByteOrder,
		File:       f.Path,
	})
	if err != nil {
		return nil, err
	}
	units, err := d.Units()
	if err != nil {
		return nil, err
	}
	in := &Input{Path: f.Path, ELF: f, DWARF: d,
		DebugStr: secs[".debug_str"], DebugLineStr: secs[".debug_line_str"], InfoSize: len(secs[".debug_info"]),
		info: secs[".debug_info"], infoCopied: f.IsCopy(secs[".debug_info"]), secs: secs}
	if units, err = in.attachParts(units, opts); err != nil {
		in.closeParts()
		return nil, err
	}
	in.Units = units
	if len(in.parts) > 0 {
		// The units refer into the supplement's, which are walked with
		// them as one, as the units of a file dwz processed alone are.
		in.Merge = in.Supplement != ""
	} else if in.Merge, in.Note, err = mergeUnits(f, d, units); err != nil {
		return nil, err
	}
	if (in.Merge || hasPartialUnits(units)) && in.Note != LTONoteOn {
		// Partial units that compile units import, rather than an LTO
		// link's units referring into each other: each compile unit with
		// what it imports, as without dwz.
		groups, refs, ok, err := unitGroups(d, units)
		if err != nil {
			return nil, err
		}
		if ok {
			in.Groups, in.PartRefs, in.Merge = groups, refs, false
		}
	}
	// Reading the unit headers faulted in much of .debug_info (the kernel
	// maps pages around each fault); let it go until the units are walked.
	f.Release(secs[".debug_info"])
	return in, nil
}

// attachParts attaches the files the input's DWARF continues in to its
// Data: the supplementary file of a dwz -m input and the split DWARF
// objects of its skeleton units. It returns the units to walk.
func (in *Input) attachParts(units []dwarf.Unit, opts OpenOptions) ([]dwarf.Unit, error) {
	units, err := in.attachSupplement(units, opts)
	if err != nil {
		return nil, err
	}
	return in.attachSplit(units)
}

// Close unmaps the file and the files attached to it.
func (in *Input) Close() error {
	err := in.ELF.Close()
	if e := in.closeParts(); err == nil {
		err = e
	}
	return err
}

// closeParts closes the attached files.
func (in *Input) closeParts() error {
	var err error
	for _, f := range in.parts {
		if e := f.Close(); err == nil {
			err = e
		}
	}
	in.parts = nil
	return err
}

// SectionName returns the name of ELF section idx, or "" if out of range.
func (in *Input) SectionName(idx uint32) string {
	if int(idx) < len(in.ELF.Sections) {
		return in.ELF.Sections[idx].Name
	}
	return ""
}

// ReleaseInfoBefore lets go the pages of .debug_info before off, once every
// unit there has been walked and nothing taken from those units points
// into .debug_info any more (names read from it inline are copied). Calls
// with growing offsets release what the earlier calls could not: pages
// shared by two units, released only when both are done. For a mapped
// section releasing is only a hint (see elffile.File.Release): reading
// the data again faults it back in. A module's .debug_info, relocated into
// a private copy, is discarded (elffile.File.Discard): its pages are
// given back, so a module's whole .debug_info is not held at the end of
// the walk.
func (in *Input) ReleaseInfoBefore(off uint64) {
	switch {
	case !in.infoCopied:
		releaseBefore(in.ELF.Release, in.info, &in.released, off, releaseBatch)
	case !in.KeepInfo:
		releaseBefore(in.ELF.Discard, in.info, &in.released, off, discardBatch)
	}
}

// releaseBefore lets go, by let, the whole pages of sec from *done to off
// once there are at least batch bytes of them (see releaseBatch), and
// records off in *done.
func releaseBefore(let func([]byte), sec []byte, done *int, off uint64, batch int) {
	off = min(off, uint64(len(sec)))
	if int(off) < *done+batch {
		return // not worth a call yet
	}
	// Start a page early: the page holding the last call's end was partly
	// in use then, and only whole pages are let go.
	let(sec[max(*done-pageSize, 0):off])
	*done = int(off)
}

// releaseBatch is how much of a mapped .debug_info ReleaseInfoBefore lets
// go at once at least: every release of mapped pages flushes the TLBs of
// the CPUs running the process's threads, which per unit (2,352 in the
// kernel) cost more system time than the pages are worth. A relocated copy
// is discarded in smaller batches: its pages are the process's own memory.
const (
	releaseBatch = 8 << 20
	discardBatch = 256 << 10
)

// pageSize is the largest page size of the systems we run on that matters
// here; releasing is a hint, so a larger real page size only keeps more.
const pageSize = 64 << 10

// ReleaseAbbrevBefore lets go the pages of a mapped .debug_abbrev before
// offset off: the abbreviation tables of units already walked (a unit's
// table is read once, when its walk starts). A hint, as Release's: a page
// read again comes back from the file, and a relocated copy (a module's)
// is left alone.
func (in *Input) ReleaseAbbrevBefore(off uint64) {
	releaseBefore(in.ELF.Release, in.secs[".debug_abbrev"], &in.abbrevReleased, off, sideBatch)
}

// ReleaseLocationsBefore lets go the pages of a mapped .debug_loclists (or
// .debug_loc, whichever the input has) before offset off: the location
// lists of units already walked (Walker.LocationsRead), which a linker lays
// out in unit order. A hint, as ReleaseAbbrevBefore's.
func (in *Input) ReleaseLocationsBefore(off uint64) {
	lists, loc := in.secs[".debug_loclists"], in.secs[".debug_loc"]
	switch {
	case len(lists) > 0 && len(loc) == 0:
		releaseBefore(in.ELF.Release, lists, &in.locReleased, off, sideBatch)
	case len(loc) > 0 && len(lists) == 0:
		releaseBefore(in.ELF.Release, loc, &in.locReleased, off, sideBatch)
	}
}

// sideBatch is how much of .debug_abbrev or a location section a release
// lets go at least: they are a tenth of .debug_info's size, and each
// release flushes TLBs as releaseBatch says.
const sideBatch = 1 << 20

// ReleaseDebug lets go the pages of every debug section once the units are
// walked: later phases read only a few names from them, none from
// .debug_info (see ReleaseInfoBefore), whose relocated copy is discarded.
func (in *Input) ReleaseDebug() {
	for name, b := range in.secs {
		if name == ".debug_info" && in.infoCopied {
			if !in.KeepInfo {
				in.ELF.Discard(b)
			}
			continue
		}
		in.ELF.Release(b)
	}
	in.released = len(in.info)
}
