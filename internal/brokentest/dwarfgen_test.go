package brokentest

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// die is a DIE for the small DWARF assembler below, used to build
// hostile-but-well-formed DWARF (cycles, absurd values, odd references)
// that mutating real objects reaches only by luck.
type die struct {
	tag   dwarf.Tag
	attrs []dattr
	kids  []*die
	// forceChildren sets DW_CHILDREN_yes without children (the null entry
	// is still written).
	forceChildren bool
	// sig, if set, stands for the abbreviation signature (tag, children,
	// attributes and forms): DIEs with many attributes set it to keep
	// assembling fast.
	sig string
	off uint64 // assigned by assemble: offset in .debug_info
}

// dattr is one attribute. Values by form: FormString string; FormRef4 one
// of *die, ref, rawRef; FormExprloc and FormBlock1 []byte; FormFlagPresent
// nothing; every other form uint64.
type dattr struct {
	at   dwarf.Attr
	form dwarf.Form
	v    any
}

// ref is a reference to a DIE plus a byte delta (into the middle of it).
type ref struct {
	to    *die
	delta int64
}

// rawRef is a unit-relative reference value written as is.
type rawRef uint64

func d(tag dwarf.Tag, attrs []dattr, kids ...*die) *die {
	return &die{tag: tag, attrs: attrs, kids: kids}
}

func aName(s string) dattr             { return dattr{dwarf.AttrName, dwarf.FormString, s} }
func aType(to any) dattr               { return dattr{dwarf.AttrType, dwarf.FormRef4, to} }
func aU(at dwarf.Attr, v uint64) dattr { return dattr{at, dwarf.FormUdata, v} }
func aD8(at dwarf.Attr, v uint64) dattr {
	return dattr{at, dwarf.FormData8, v}
}
func aFlag(at dwarf.Attr) dattr { return dattr{at, dwarf.FormFlagPresent, nil} }
func aExpr(at dwarf.Attr, b ...byte) dattr {
	return dattr{at, dwarf.FormExprloc, append([]byte(nil), b...)}
}

// cuOptions describe the unit header.
type cuOptions struct {
	version  uint16 // 4 or 5
	addrSize uint8
	producer string
}

// assemble returns .debug_info and .debug_abbrev for one compile unit
// holding kids, little-endian, 32-bit DWARF. Identical abbreviations are
// shared.
func assemble(o cuOptions, kids ...*die) (info, abbrev []byte) {
	if o.version == 0 {
		o.version = 4
	}
	if o.addrSize == 0 {
		o.addrSize = 8
	}
	if o.producer == "" {
		o.producer = "GNU C17 12.2.0 -O2 -g (btfgate synthetic)"
	}
	root := d(dwarf.TagCompileUnit, []dattr{
		{dwarf.AttrProducer, dwarf.FormString, o.producer},
		{dwarf.AttrLanguage, dwarf.FormData1, uint64(0x1d)},
		aName("synthetic.c"),
		{dwarf.AttrLowPc, dwarf.FormAddr, uint64(0)},
	}, kids...)

	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, 0) // unit length, patched below
	b = le.AppendUint16(b, o.version)
	if o.version >= 5 {
		b = append(b, 1, o.addrSize) // DW_UT_compile
		b = le.AppendUint32(b, 0)
	} else {
		b = le.AppendUint32(b, 0)
		b = append(b, o.addrSize)
	}

	codes := map[string]uint64{}
	type patch struct {
		at    int
		to    *die
		delta int64
	}
	var patches []patch
	var emit func(x *die)
	emit = func(x *die) {
		x.off = uint64(len(b))
		children := len(x.kids) > 0 || x.forceChildren
		key := x.sig
		if key == "" {
			var sig strings.Builder
			fmt.Fprintf(&sig, "%d/%v", x.tag, children)
			for _, a := range x.attrs {
				fmt.Fprintf(&sig, "/%d:%d", a.at, a.form)
			}
			key = sig.String()
		}
		code, ok := codes[key]
		if !ok {
			code = uint64(len(codes) + 1)
			codes[key] = code
			abbrev = binary.AppendUvarint(abbrev, code)
			abbrev = binary.AppendUvarint(abbrev, uint64(x.tag))
			if children {
				abbrev = append(abbrev, 1)
			} else {
				abbrev = append(abbrev, 0)
			}
			for _, a := range x.attrs {
				abbrev = binary.AppendUvarint(abbrev, uint64(a.at))
				abbrev = binary.AppendUvarint(abbrev, uint64(a.form))
			}
			abbrev = append(abbrev, 0, 0)
		}
		b = binary.AppendUvarint(b, code)
		for _, a := range x.attrs {
			switch a.form {
			case dwarf.FormString:
				b = append(b, a.v.(string)...)
				b = append(b, 0)
			case dwarf.FormRef4:
				switch v := a.v.(type) {
				case *die:
					patches = append(patches, patch{len(b), v, 0})
					b = le.AppendUint32(b, 0)
				case ref:
					patches = append(patches, patch{len(b), v.to, v.delta})
					b = le.AppendUint32(b, 0)
				case rawRef:
					b = le.AppendUint32(b, uint32(v))
				default:
					panic(fmt.Sprintf("ref4 value %T", a.v))
				}
			case dwarf.FormExprloc:
				blk := a.v.([]byte)
				b = binary.AppendUvarint(b, uint64(len(blk)))
				b = append(b, blk...)
			case dwarf.FormBlock1:
				blk := a.v.([]byte)
				b = append(b, byte(len(blk)))
				b = append(b, blk...)
			case dwarf.FormFlagPresent:
			case dwarf.FormData1, dwarf.FormFlag:
				b = append(b, byte(a.v.(uint64)))
			case dwarf.FormData2:
				b = le.AppendUint16(b, uint16(a.v.(uint64)))
			case dwarf.FormData4, dwarf.FormSecOffset:
				b = le.AppendUint32(b, uint32(a.v.(uint64)))
			case dwarf.FormData8:
				b = le.AppendUint64(b, a.v.(uint64))
			case dwarf.FormAddr:
				if o.addrSize == 4 {
					b = le.AppendUint32(b, uint32(a.v.(uint64)))
				} else {
					b = le.AppendUint64(b, a.v.(uint64))
				}
			case dwarf.FormUdata, dwarf.FormLoclistx, dwarf.FormAddrx:
				b = binary.AppendUvarint(b, a.v.(uint64))
			case dwarf.FormSdata:
				b = appendSleb(b, int64(a.v.(uint64)))
			default:
				panic(fmt.Sprintf("form %v not supported by the assembler", a.form))
			}
		}
		for _, k := range x.kids {
			emit(k)
		}
		if children {
			b = append(b, 0)
		}
	}
	emit(root)
	abbrev = append(abbrev, 0)
	for _, p := range patches {
		le.PutUint32(b[p.at:], uint32(int64(p.to.off)+p.delta))
	}
	le.PutUint32(b, uint32(len(b)-4))
	return b, abbrev
}

// appendSleb appends v as SLEB128.
func appendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
