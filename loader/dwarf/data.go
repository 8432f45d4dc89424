package dwarf

import (
	"encoding/binary"
	"errors"
	"sync"
)

// Sections holds the DWARF sections of one object file. Only Info and
// Abbrev are required; the others are needed by the forms and lists that
// point into them. For relocatable objects the bytes must already be
// relocated.
type Sections struct {
	Info, Abbrev, Str, LineStr, StrOffsets, Addr, RngLists, LocLists, Loc, Ranges []byte

	ByteOrder binary.ByteOrder
	File      string // for error messages
}

// Data is the DWARF data of one object file: its sections and a cache of
// parsed abbreviation tables. It is safe for concurrent use by several
// Readers.
type Data struct {
	file                                      string
	le                                        bool
	order                                     binary.ByteOrder
	info, abbrev, str, lineStr, strOffsets    []byte
	addr, rngLists, locLists, loc, rangesData []byte

	mu         sync.Mutex
	abbrevs    map[abbrevKey]*abbrevTable
	abbrevUses map[uint64]int // units per abbreviation offset, from Units

	privateParses map[abbrevKey]int // private parses per table (see abbrevTable)

	// parts[0] is the input, the others are attached (see Attach);
	// supPart is the supplement's number, 0 if none.
	parts   []*part
	supPart int
}

// New returns the Data for the sections s. It only checks that the
// required parts are present; units are decoded on demand.
func New(s Sections) (*Data, error) {
	if s.ByteOrder == nil {
		return nil, errors.New("dwarf: " + s.File + ": no byte order given")
	}
	if len(s.Info) > 0 && len(s.Abbrev) == 0 {
		return nil, (&Data{file: s.File}).decodeError(".debug_abbrev", 0, -1, errNoSection)
	}
	var probe [2]byte
	s.ByteOrder.PutUint16(probe[:], 1)
	d := &Data{
		file:       s.File,
		le:         probe[0] == 1,
		order:      s.ByteOrder,
		info:       s.Info,
		abbrev:     s.Abbrev,
		str:        s.Str,
		lineStr:    s.LineStr,
		strOffsets: s.StrOffsets,
		addr:       s.Addr,
		rngLists:   s.RngLists,
		locLists:   s.LocLists,
		loc:        s.Loc,
		rangesData: s.Ranges,
		abbrevs:    make(map[abbrevKey]*abbrevTable),

		privateParses: make(map[abbrevKey]int),
	}
	d.parts = []*part{{file: s.File, infoEnd: uint64(len(s.Info)), abbrevEnd: uint64(len(s.Abbrev)),
		secs: sectionSet{str: s.Str, lineStr: s.LineStr, strOffsets: s.StrOffsets, addr: s.Addr,
			rngLists: s.RngLists, locLists: s.LocLists, loc: s.Loc, ranges: s.Ranges}}}
	return d, nil
}

// ByteOrder returns the byte order of the data.
func (d *Data) ByteOrder() binary.ByteOrder { return d.order }

// File returns the name of the file the sections came from (Sections.File).
func (d *Data) File() string { return d.file }
