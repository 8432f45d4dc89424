package elffile

import (
	"strings"
	"sync"
)

// Reading a section is one pass: locate it and read how it is stored,
// bound what decompressing it claims, find its relocations (ET_REL), then
// decompress or copy it, relocate the result and hand it out. pages owns
// the memory handed out and its release.

// SectionData returns the contents of s, a section of f.
//
// Uncompressed data is returned without copying: it is a slice of the
// mapping (capacity-limited, so appending copies), valid until Close, and
// must not be modified. SHF_COMPRESSED data (ELFCOMPRESS_ZLIB or
// ELFCOMPRESS_ZSTD) is decompressed into a new slice on every call, after
// checking the compression header and bounding the claimed size (see
// Limits). SHT_NOBITS and SHT_NULL sections have no data and give nil.
func (f *File) SectionData(s *Section) ([]byte, error) {
	if f.closed {
		return nil, f.errClosed()
	}
	raw, err := f.rawData(s)
	if err != nil || raw == nil {
		return nil, err
	}
	c, ok, err := f.compression(s, raw, false)
	if err != nil || !ok {
		return raw, err
	}
	if err := f.checkInflation(s, c.size, c.size); err != nil {
		return nil, err
	}
	return f.decompress(s, c)
}

// rawData returns the bytes of s as stored in the file. The range was
// checked by Open, but is checked again because Sections is exported.
func (f *File) rawData(s *Section) ([]byte, error) {
	if s == nil {
		return nil, &FormatError{File: f.Path, Msg: "nil section"}
	}
	if s.Type == SHT_NOBITS || s.Type == SHT_NULL {
		return nil, nil
	}
	b, ok := f.pages.section(s.Offset, s.Size)
	if !ok {
		return nil, &FormatError{File: f.Path, Section: s.displayName(), Offset: 0,
			Msg: "section data lies outside the file"}
	}
	return b, nil
}

// DebugSections returns the data of the named sections (".debug_info",
// ".debug_abbrev", ".debug_str", ...), keyed by the requested name. Names
// with no section, or only an SHT_NOBITS one, are absent from the map. When
// several sections share a name (COMDAT groups), the first is used. For
// each ".debug_X" missing, a legacy zlib ".zdebug_X" is used if present.
//
// Compressed sections are decompressed; the sizes they claim, added up,
// are bounded by the File's Limits before any is. In relocatable objects
// (ET_REL), the SHT_REL and SHT_RELA sections whose sh_info names a
// section are applied to a private copy of it, with every section at
// address 0, so that addresses are section offsets and references into
// other debug sections are offsets into them. An unsupported relocation
// type is an error. The copies are the File's (see Discard); other
// sections are returned without copying. Both are invalid after Close.
//
// Sections that need work are processed in parallel; the result does not
// depend on scheduling, and the error returned is that of the first failing
// name in argument order.
func (f *File) DebugSections(names ...string) (map[string][]byte, error) {
	if f.closed {
		return nil, f.errClosed()
	}
	jobs, err := f.locate(names)
	if err != nil {
		return nil, err
	}
	if f.Type == ET_REL {
		if err := f.attachRelocations(jobs); err != nil {
			return nil, err
		}
	}

	// Goroutines pay off only when there is real work to share.
	var work uint64
	for i := range jobs {
		if jobs[i].needsWork() {
			work += jobs[i].sec.Size
			for _, rs := range jobs[i].rels {
				work += rs.Size
			}
		}
	}
	parallel := work >= parallelThreshold
	var wg sync.WaitGroup
	for i := range jobs {
		j := &jobs[i]
		switch {
		case !j.needsWork():
			j.data = j.raw
			f.pages.willNeed(j.raw)
		case parallel:
			wg.Go(func() {
				defer GuardFaults(f.Path, &j.err)()
				j.data, j.err = f.produce(j)
			})
		default:
			j.data, j.err = f.produce(j)
		}
	}
	wg.Wait()

	out := make(map[string][]byte, len(jobs))
	for i := range jobs {
		if jobs[i].err != nil {
			return nil, jobs[i].err
		}
		out[jobs[i].name] = jobs[i].data
	}
	return out, nil
}

// parallelThreshold is the number of bytes to decompress or relocate below
// which DebugSections works on one goroutine.
const parallelThreshold = 1 << 20

// debugJob is one requested section and what it takes to produce its data.
type debugJob struct {
	name string
	sec  *Section
	raw  []byte     // the bytes in the file
	comp bool       // raw is compressed, as c says
	c    compressed //
	rels []*Section // REL/RELA sections targeting sec, in index order
	syms [][]uint64 // symbol values for each of rels
	data []byte
	err  error
}

func (j *debugJob) needsWork() bool { return j.comp || len(j.rels) > 0 }

// locate finds the section for each distinct requested name, reads how it
// is stored and bounds what the compressed ones claim, in argument order.
func (f *File) locate(names []string) ([]debugJob, error) {
	jobs := make([]debugJob, 0, len(names))
	var claimed uint64
next:
	for _, name := range names {
		for i := range jobs {
			if jobs[i].name == name {
				continue next
			}
		}
		s, zdebug := f.Section(name), false
		if s == nil {
			if rest, ok := strings.CutPrefix(name, ".debug_"); ok {
				s, zdebug = f.Section(".zdebug_"+rest), true
			}
		}
		if s == nil || s.Type == SHT_NOBITS || s.Type == SHT_NULL {
			continue
		}
		raw, err := f.rawData(s)
		if err != nil {
			return nil, err
		}
		j := debugJob{name: name, sec: s, raw: raw}
		if j.c, j.comp, err = f.compression(s, raw, zdebug); err != nil {
			return nil, err
		}
		if j.comp {
			claimed += j.c.size
			if err := f.checkInflation(s, j.c.size, claimed); err != nil {
				return nil, err
			}
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// attachRelocations finds the relocation sections of each job's section
// and the symbol values they need. Symbol tables are decoded once each,
// before any job starts, and shared read-only.
func (f *File) attachRelocations(jobs []debugJob) error {
	type table struct {
		link uint32
		vals []uint64
	}
	var tables []table
	for ri := range f.Sections {
		rs := &f.Sections[ri]
		if rs.Type != SHT_REL && rs.Type != SHT_RELA {
			continue
		}
		for i := range jobs {
			j := &jobs[i]
			if uint64(rs.Info) != uint64(j.sec.Index) {
				continue
			}
			var vals []uint64
			for _, t := range tables {
				if t.link == rs.Link {
					vals = t.vals
				}
			}
			if vals == nil {
				if uint64(rs.Link) >= uint64(len(f.Sections)) {
					return f.sectionErr(rs, 0, nil, "sh_link %d to the symbol table is out of range (%d sections)", rs.Link, len(f.Sections))
				}
				v, err := f.symbolValues(&f.Sections[rs.Link])
				if err != nil {
					return err
				}
				vals = v
				tables = append(tables, table{rs.Link, v})
			}
			j.rels = append(j.rels, rs)
			j.syms = append(j.syms, vals)
		}
	}
	return nil
}

// produce decompresses or copies one job's section and relocates it.
func (f *File) produce(j *debugJob) ([]byte, error) {
	var data []byte
	if j.comp {
		var err error
		if data, err = f.decompress(j.sec, j.c); err != nil {
			return nil, err
		}
	} else {
		data = f.pages.newCopy(len(j.raw))
		f.pages.copyTo(data, j.raw, j.sec.Offset)
	}
	for k, rs := range j.rels {
		if err := f.relocate(data, j.sec, rs, j.syms[k]); err != nil {
			return nil, err
		}
	}
	// The mapped pages read to make the data are not read again: let them
	// go, or a module's RSS holds its debug sections twice.
	f.pages.release(j.raw)
	for _, rs := range j.rels {
		if b, ok := f.pages.section(rs.Offset, rs.Size); ok {
			f.pages.release(b)
		}
	}
	return data, nil
}
