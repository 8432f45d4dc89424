package brokentest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

const fixtureDir = "../../testdata/fixtures"

func fixturePath(name string) string { return filepath.Join(fixtureDir, name) }

func readFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(fixturePath(name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// thin keeps every nth element of xs.
func thin[T any](xs []T, n int) []T {
	if n <= 1 {
		return xs
	}
	var out []T
	for i := 0; i < len(xs); i += n {
		out = append(out, xs[i])
	}
	return out
}

// extent is the end of the last byte the section headers reach: the
// table itself and every section's data. Cutting the file before it must
// fail.
func (im *image) extent() uint64 {
	end := im.shoff + uint64(len(im.secs))*im.shentsize
	for i := range im.secs {
		s := &im.secs[i]
		if s.Type == elffile.SHT_NOBITS || s.Type == elffile.SHT_NULL {
			continue
		}
		end = max(end, s.Offset+s.Size)
	}
	return end
}

// truncations cuts the file at every header boundary (ELF header fields,
// each section header, each section's start and middle) and at spread
// offsets.
func truncations(im *image, source string, spread int) []brokenCase {
	size := uint64(len(im.data))
	offs := map[uint64]string{}
	add := func(off uint64, why string) {
		if off < size {
			if _, ok := offs[off]; !ok {
				offs[off] = why
			}
		}
	}
	for _, off := range []uint64{0, 1, 4, 5, 6, 7, 15, 16, 18, 20, 24, 32, 40, 48, 52, 58, 60, 62, 63} {
		add(off, "ehdr")
	}
	add(uint64(im.get(im.ehdrField("e_ehsize"))), "ehdr-end")
	for i := range im.secs {
		at := im.shoff + uint64(i)*im.shentsize
		add(at, fmt.Sprintf("shdr%d", i))
		add(at+im.shentsize/2, fmt.Sprintf("shdr%d-mid", i))
		s := &im.secs[i]
		if s.Type != elffile.SHT_NOBITS && s.Size > 0 {
			add(s.Offset, "sec-"+s.Name)
			add(s.Offset+s.Size/2, "sec-mid-"+s.Name)
		}
	}
	for k := 1; k <= spread; k++ {
		add(size*uint64(k)/uint64(spread+1), "spread")
	}
	ext := im.extent()
	var out []brokenCase
	for off := uint64(0); off < size; off++ { // in offset order
		why, ok := offs[off]
		if !ok {
			continue
		}
		out = append(out, brokenCase{name: fmt.Sprintf("trunc-%s-at-%#x", why, off), data: im.data[:off:off],
			mustFail: off < ext, source: source})
	}
	return out
}

// ehdrFlips inverts each byte of the ELF header in turn.
func ehdrFlips(im *image, source string) []brokenCase {
	n := int(im.get(im.ehdrField("e_ehsize")))
	var out []brokenCase
	for i := 0; i < n; i++ {
		b := im.clone()
		b[i] ^= 0xff
		// Bytes 0-3 (magic), 4 (class), 5 (data), 6 (version) cannot
		// survive inversion.
		out = append(out, brokenCase{name: fmt.Sprintf("ehdr-flip-%d", i), data: b, mustFail: i <= 6, source: source})
	}
	return out
}

// shdrAbsurd sets each field of the section headers of the named sections
// (all sections when names is nil) to all ones, and flips random bytes of
// the section header table.
func shdrAbsurd(im *image, source string, names map[string]bool, flips int, rng *rand.Rand) []brokenCase {
	var out []brokenCase
	for i := 1; i < len(im.secs); i++ {
		s := &im.secs[i]
		if names != nil && !names[s.Name] {
			continue
		}
		for _, fn := range shdrFields {
			if fn == "sh_addr" || fn == "sh_addralign" {
				continue // not read
			}
			f := im.shdrField(i, fn)
			all := ^uint64(0) >> (64 - 8*f.width)
			must := false
			switch fn {
			case "sh_offset", "sh_size":
				must = s.Type != elffile.SHT_NOBITS && s.Type != elffile.SHT_NULL
			case "sh_name":
				must = true
			}
			out = append(out, brokenCase{name: fmt.Sprintf("shdr%d-%s-%s-ones", i, s.Name, fn), data: im.with(f, all),
				mustFail: must, source: source})
		}
	}
	table := im.shoff
	tsize := uint64(len(im.secs)) * im.shentsize
	for k := 0; k < flips; k++ {
		off := table + rng.Uint64N(tsize)
		b := im.clone()
		b[off] ^= byte(1 + rng.IntN(255))
		out = append(out, brokenCase{name: fmt.Sprintf("shdr-flip-%d-at-%#x", k, off), data: b, source: source})
	}
	return out
}

// ehdrAbsurd sets the ELF header's counts and offsets to absurd values.
func ehdrAbsurd(im *image, source string) []brokenCase {
	nsec := uint64(len(im.secs))
	var out []brokenCase
	add := func(name string, data []byte, must bool) {
		out = append(out, brokenCase{name: name, data: data, mustFail: must, source: source})
	}
	add("e_shnum-0xffff", im.with(im.ehdrField("e_shnum"), 0xffff), true)
	add("e_shnum-nsec+1", im.with(im.ehdrField("e_shnum"), nsec+1), false)
	add("e_shnum-1", im.with(im.ehdrField("e_shnum"), 1), true)
	add("e_shoff-max", im.with(im.ehdrField("e_shoff"), ^uint64(0)>>1), true)
	add("e_shoff-filesize", im.with(im.ehdrField("e_shoff"), uint64(len(im.data))), true)
	add("e_shoff-unaligned", im.with(im.ehdrField("e_shoff"), im.shoff+1), true)
	add("e_shentsize-1", im.with(im.ehdrField("e_shentsize"), 1), true)
	add("e_shentsize-0xffff", im.with(im.ehdrField("e_shentsize"), 0xffff), true)
	add("e_shstrndx-nsec", im.with(im.ehdrField("e_shstrndx"), nsec), true)
	add("e_shstrndx-0xfffe", im.with(im.ehdrField("e_shstrndx"), 0xfffe), true)
	// Extended numbering: e_shnum 0 takes the count from section 0's
	// sh_size, here absurd.
	b := im.with(im.ehdrField("e_shnum"), 0)
	putUint(im.order, b[im.shdrField(0, "sh_size").off:], im.shdrField(0, "sh_size").width, 1<<40)
	add("e_shnum-0-sh_size-2^40", b, true)
	b = im.with(im.ehdrField("e_shstrndx"), elffile.SHN_XINDEX)
	putUint(im.order, b[im.shdrField(0, "sh_link").off:], 4, 0xfffffff0)
	add("e_shstrndx-xindex-huge", b, true)
	// Wrong byte order: every multi-byte field reads byte-swapped.
	b = im.clone()
	b[5] = 3 - b[5]
	add("wrong-endian", b, true)
	// Wrong class.
	b = im.clone()
	b[4] = 3 - b[4]
	add("wrong-class", b, true)
	// Wrong architecture. Relocatable objects cannot be relocated for
	// an unknown machine; linked objects have nothing that depends on it.
	rel := im.get(im.ehdrField("e_type")) == elffile.ET_REL
	add("e_machine-none", im.with(im.ehdrField("e_machine"), 0), rel)
	add("e_machine-0xffff", im.with(im.ehdrField("e_machine"), 0xffff), rel)
	add("e_machine-s390", im.with(im.ehdrField("e_machine"), 22), false)
	add("e_machine-386", im.with(im.ehdrField("e_machine"), 3), false)
	add("e_type-core", im.with(im.ehdrField("e_type"), 4), false)
	return out
}

// missingSections removes (renames) the sections the encoder reads and
// breaks the symbol table's header.
func missingSections(tb testing.TB, im *image, source string) []brokenCase {
	var out []brokenCase
	add := func(name string, data []byte, must bool) {
		out = append(out, brokenCase{name: name, data: data, mustFail: must, source: source})
	}
	// Missing sections, renamed away.
	for _, m := range []struct {
		name, to string
		must     bool
	}{
		{".symtab", ".symtax", false}, // found by type, SHT_SYMTAB
		{".debug_info", ".debug_inxo", true},
		{".debug_abbrev", ".debug_abbrex", true},
		{".debug_str", ".debug_stx", false},
		{".debug_loclists", ".debug_loclistx", false},
		{".debug_str_offsets", ".debug_str_offsetx", false},
		{".debug_addr", ".debug_addx", false},
		{".BTF_ids", ".BTF_idx", false},
	} {
		if im.section(m.name) >= 0 {
			add("missing"+m.name, im.renamed(tb, m.name, m.to), m.must)
		}
	}
	if i := im.section(".symtab"); i >= 0 {
		add("symtab-type-progbits", im.with(im.shdrField(i, "sh_type"), elffile.SHT_PROGBITS), true)
		add("symtab-entsize-0", im.with(im.shdrField(i, "sh_entsize"), 0), false)
		add("symtab-entsize-7", im.with(im.shdrField(i, "sh_entsize"), 7), true)
		add("symtab-link-0xffff", im.with(im.shdrField(i, "sh_link"), 0xffff), true)
	}
	return out
}

// sectionCases covers absurd sizes of the DWARF and symbol sections,
// truncated DWARF sections and random byte flips in them.
func sectionCases(im *image, source string, flipsPerSec int, rng *rand.Rand) []brokenCase {
	var out []brokenCase
	add := func(name string, data []byte, must bool) {
		out = append(out, brokenCase{name: name, data: data, mustFail: must, source: source})
	}
	compressed := func(name string) bool {
		i := im.section(name)
		return i >= 0 && im.secs[i].Flags&elffile.SHF_COMPRESSED != 0
	}
	for _, name := range []string{".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_loclists",
		".debug_loc", ".debug_str_offsets", ".debug_addr", ".debug_rnglists", ".symtab", ".strtab"} {
		i := im.section(name)
		if i < 0 {
			continue
		}
		s := &im.secs[i]
		size := im.shdrField(i, "sh_size")
		add("size-huge"+name, im.with(size, min(1<<62, ^uint64(0)>>(64-8*size.width)-15)), true)
		add("size-past-eof"+name, im.with(size, uint64(len(im.data))-s.Offset+1), true)
		add("offset-past-eof"+name, im.with(im.shdrField(i, "sh_offset"), uint64(len(im.data))), s.Size > 0)
		if compressed(name) {
			// The compression header's decompressed size, absurd.
			b := im.clone()
			if im.is64 {
				putUint(im.order, b[s.Offset+8:], 8, 1<<40)
			} else {
				putUint(im.order, b[s.Offset+4:], 4, 0xfffffff0)
			}
			add("chdr-size-huge"+name, b, true)
			b = im.clone()
			putUint(im.order, b[s.Offset:], 4, 77)
			add("chdr-type-unknown"+name, b, true)
			continue
		}
		// Truncated contents.
		for _, n := range []uint64{0, 1, 11, s.Size / 2, s.Size - 1} {
			if n >= s.Size {
				continue
			}
			must := false
			switch name {
			case ".debug_info", ".debug_abbrev":
				must = n < s.Size/2+1
			}
			add(fmt.Sprintf("cut%s-to-%d", name, n), im.with(size, n), must)
		}
		// Random byte flips.
		nflips := flipsPerSec
		if name == ".debug_info" {
			nflips *= 3
		}
		if name == ".symtab" || name == ".strtab" || name == ".debug_str" {
			nflips /= 2
		}
		for k := 0; k < nflips && s.Size > 0; k++ {
			off := s.Offset + rng.Uint64N(s.Size)
			b := im.clone()
			b[off] ^= byte(1 + rng.IntN(255))
			add(fmt.Sprintf("flip%s-%d-at-%#x", name, k, off-s.Offset), b, false)
		}
	}
	return out
}

// refCases rewrites DW_AT_type references of real DIEs: to the DIE itself,
// past the end of the unit, into the middle of a DIE, to the unit header
// and to 0xffffffff. Only DW_FORM_ref4 values found once in their DIE's
// bytes are rewritten. A reference into the middle of a DIE or the unit
// header must be an error, but from a subrange (its index type, which BTF
// has no place for: neither pahole nor btfgate reads it); the others may
// read as void (a DIE that is not a type, as pahole reads it) or be errors.
func refCases(tb testing.TB, im *image, source string, perUnit int) []brokenCase {
	f, err := elffile.NewFile(source, im.data)
	if err != nil {
		tb.Fatal(err)
	}
	secs, err := f.DebugSections(".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets", ".debug_addr")
	if err != nil {
		tb.Fatal(err)
	}
	dd, err := dwarf.New(dwarf.Sections{Info: secs[".debug_info"], Abbrev: secs[".debug_abbrev"], Str: secs[".debug_str"],
		LineStr: secs[".debug_line_str"], StrOffsets: secs[".debug_str_offsets"], Addr: secs[".debug_addr"],
		ByteOrder: f.ByteOrder, File: source})
	if err != nil {
		tb.Fatal(err)
	}
	units, err := dd.Units()
	if err != nil {
		tb.Fatal(err)
	}
	infoIdx := im.section(".debug_info")
	raw := im.sectionBytes(infoIdx)
	fileOff := im.secs[infoIdx].Offset
	var out []brokenCase
	for ui := range units {
		u := &units[ui]
		r := dd.NewReader()
		if err := r.Seek(u); err != nil {
			tb.Fatal(err)
		}
		type site struct {
			die, at, next uint64
			tag           dwarf.Tag
		}
		var sites []site
		var e dwarf.Entry
		for r.Next(&e) {
			next := r.Offset()
			for _, fl := range e.Fields {
				if fl.Attr != dwarf.AttrType || fl.Form != dwarf.FormRef4 {
					continue
				}
				var want [4]byte
				putUint(im.order, want[:], 4, fl.Val-u.Offset)
				hits, at := 0, uint64(0)
				for p := e.Offset; p+4 <= next; p++ {
					if string(raw[p:p+4]) == string(want[:]) {
						hits++
						at = p
					}
				}
				if hits == 1 {
					sites = append(sites, site{e.Offset, at, next, e.Tag})
				}
			}
		}
		if len(sites) == 0 {
			continue
		}
		for k := 0; k < perUnit; k++ {
			s := sites[k*len(sites)/perUnit]
			for _, tgt := range []struct {
				name string
				v    uint64
				must bool // no DIE starts there, in any unit
			}{
				{"self", s.die - u.Offset, false},
				{"past-unit", u.End - u.Offset + 0x100, false},
				{"unit-end", u.End - u.Offset, false},
				{"mid-die", s.die - u.Offset + 1, true},
				{"header", 1, true},
				{"root", u.DataOffset - u.Offset, false},
				{"ones", 0xffffffff, false},
			} {
				b := im.clone()
				putUint(im.order, b[fileOff+s.at:], 4, tgt.v)
				out = append(out, brokenCase{name: fmt.Sprintf("ref-u%d-%v-%#x-%s", ui, s.tag, s.die, tgt.name), data: b,
					mustFail: tgt.must && s.tag != dwarf.TagSubrangeType, source: source})
			}
		}
	}
	return out
}

// le is the byte order of synthesized DWARF.
var le = binary.LittleEndian
