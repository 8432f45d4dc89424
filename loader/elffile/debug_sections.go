package elffile

import (
	"strings"
	"sync"
)

// DebugSections returns the data of the named sections (".debug_info",
// ".debug_abbrev", ".debug_str", ...), keyed by the requested name. Names
// with no section, or only an SHT_NOBITS one, are absent from the map. When
// several sections share a name (COMDAT groups), the first is used. For
// each ".debug_X" missing, a legacy zlib ".zdebug_X" is used if present.
//
// Compressed sections are decompressed. In relocatable objects (ET_REL),
// the SHT_REL and SHT_RELA sections whose sh_info names a section are
// applied to a private copy of it, with every section at address 0, so that
// addresses are section offsets and references into other debug sections
// are offsets into them. An unsupported relocation type is an error. The
// copies are the File's (see Discard); other sections are returned without
// copying. Both are invalid after Close.
//
// Sections that need work are processed in parallel; the result does not
// depend on scheduling, and the error returned is that of the first failing
// name in argument order.
func (f *File) DebugSections(names ...string) (map[string][]byte, error) {
	if f.closed {
		return nil, f.errClosed()
	}
	jobs := f.debugJobs(names)
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
		if j.needsWork() {
			if parallel {
				wg.Go(func() {
					defer GuardFaults(f.Path, &j.err)()
					j.data, j.err = f.loadDebug(j)
				})
			} else {
				j.data, j.err = f.loadDebug(j)
			}
			continue
		}
		j.data, j.err = f.rawData(j.sec)
		if f.mapped && j.err == nil {
			adviseWillNeed(f.data, j.sec.Offset, j.sec.Size)
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
	name   string
	sec    *Section
	zdebug bool       // legacy .zdebug_* framing
	rels   []*Section // REL/RELA sections targeting sec, in index order
	syms   [][]uint64 // symbol values for each of rels
	data   []byte
	err    error
}

func (j *debugJob) needsWork() bool {
	return j.zdebug || j.sec.Flags&SHF_COMPRESSED != 0 || len(j.rels) > 0
}

// debugJobs finds the section for each distinct requested name.
func (f *File) debugJobs(names []string) []debugJob {
	jobs := make([]debugJob, 0, len(names))
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
		jobs = append(jobs, debugJob{name: name, sec: s, zdebug: zdebug})
	}
	return jobs
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

// loadDebug decompresses and relocates one job's section.
func (f *File) loadDebug(j *debugJob) ([]byte, error) {
	var data []byte
	var err error
	switch {
	case j.zdebug:
		var raw []byte
		if raw, err = f.rawData(j.sec); err == nil {
			data, err = f.decompressZdebug(j.sec, raw)
		}
	default:
		data, err = f.SectionData(j.sec)
	}
	if err != nil || len(j.rels) == 0 {
		return data, err
	}
	if !j.zdebug && j.sec.Flags&SHF_COMPRESSED == 0 {
		data = f.privateCopy(j.sec, data)
	}
	for k, rs := range j.rels {
		if err := f.relocate(data, j.sec, rs, j.syms[k]); err != nil {
			return nil, err
		}
	}
	// Mapped pages read to make the copy (when it could not be read from
	// the file) are not read again: let them go, or a module's RSS holds
	// its debug sections twice.
	if f.mapped {
		adviseDontNeed(f.data, j.sec.Offset, j.sec.Size)
		for _, rs := range j.rels {
			adviseDontNeed(f.data, rs.Offset, rs.Size)
		}
	}
	return data, nil
}

// privateCopy returns a copy of data, the bytes of s in the mapping, to
// relocate. Reading the file (pread) costs less than copying the mapping,
// which faults in every page of the source as well as of the copy.
func (f *File) privateCopy(s *Section, data []byte) []byte {
	cp := f.newCopy(len(data))
	if f.fh != nil {
		if n, err := f.fh.ReadAt(cp, int64(s.Offset)); n == len(cp) && err == nil {
			return cp
		}
	}
	copy(cp, data) // the mapping was checked by Open; the file may not be
	return cp
}
