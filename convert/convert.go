// Package convert owns the mapping of DWARF types to BTF: it turns one
// compile unit's type table (loader.TypeTable) and the variables chosen for
// it into a btf.Fragment, which btf.Splicer then joins in unit order. It
// sits between loader, which walks DWARF, and btf, which knows nothing of
// DWARF.
package convert

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
)

// Options are the features that change how DWARF types map to BTF.
type Options struct {
	Float  bool // float: floating-point base types become FLOAT
	Enum64 bool // enum64: enums wider than 4 bytes become ENUM64
}

// Var is a variable the caller decided to encode for a CU: a VAR of CU
// type Type (a type table id), followed by its decl tags.
type Var struct {
	Name    string
	Type    btf.TypeID
	Linkage uint32
	Tags    []string
}

// sanitizedIntName is what pahole calls base types of odd sizes.
const sanitizedIntName = "__SANITIZED_FAKE_INT__"

// Converter maps CU type tables to BTF fragments. It keeps buffers between
// CUs; use one per goroutine.
type Converter struct {
	opts Options
	strs localStrings
	// A type's members, enumerators or parameters while it is built: kept
	// from unit to unit, since each type is copied out of them.
	members []btf.Member
	values  []btf.EnumValue
	params  []btf.Param
}

// New returns a Converter with opts. strs indexes the DWARF
// string sections names may alias (nil: none): names found there are
// interned by address, which is cheaper than by content.
func New(opts Options, strs *btf.StringSections) *Converter {
	return &Converter{opts: opts, strs: localStrings{index: map[string]uint32{}, secs: strs.Spans()}}
}

// localStrings interns a fragment's names: Add returns 1 + the string's
// index in list, 0 for "". The strings are not copied.
//
// Names that lie in a DWARF string section (nearly all) are keyed by
// section and offset in a small open-addressing table that lives for one
// unit: it stays in the CPU caches, where a table over the whole section
// would not. Other names go through a map.
type localStrings struct {
	secs  []btf.StrSpan // the sections: where each starts and ends
	slots []localSlot
	used  []uint32 // indexes of the slots set for this unit
	index map[string]uint32
	list  []string
}

// localSlot is one name of the unit: key is 1 + its section index << 32 |
// its offset in the section (0: free), val 1 + its index in list.
type localSlot struct {
	key uint64
	val uint32
}

func (l *localStrings) Add(s string) uint32 {
	if s == "" {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	for si, sec := range l.secs {
		off, ok := sec.Offset(p)
		if !ok {
			continue
		}
		if 2*(len(l.used)+1) > len(l.slots) {
			l.grow()
		}
		key := uint64(si+1)<<32 | uint64(off)
		mask := len(l.slots) - 1
		for i := slotIndex(key, mask); ; i = (i + 1) & mask {
			slot := &l.slots[i]
			if slot.key == key {
				return slot.val
			}
			if slot.key == 0 {
				// The same bytes are the same name; a name that is the tail
				// of another has an offset of its own.
				v := l.add(s)
				slot.key, slot.val = key, v
				l.used = append(l.used, uint32(i))
				return v
			}
		}
	}
	if i, ok := l.index[s]; ok {
		return i
	}
	i := l.add(s)
	l.index[s] = i
	return i
}

// grow doubles the slot table, keeping the slots set.
func (l *localStrings) grow() {
	old := l.slots
	l.slots = make([]localSlot, max(2*len(old), 1024))
	// Written before it is read: the probes below would read fresh pages
	// first, which maps the zero page, and the write after it faults again
	// and flushes the TLB of each CPU running the process. A table at
	// half its load has every page written anyway.
	clear(l.slots)
	mask := len(l.slots) - 1
	l.used = l.used[:0]
	for _, slot := range old {
		if slot.key == 0 {
			continue
		}
		i := slotIndex(slot.key, mask)
		for l.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		l.slots[i] = slot
		l.used = append(l.used, uint32(i))
	}
}

func (l *localStrings) add(s string) uint32 {
	l.list = append(l.list, s)
	return uint32(len(l.list))
}

// reset forgets the strings of the previous CU.
func (l *localStrings) reset() {
	for _, i := range l.used {
		l.slots[i] = localSlot{}
	}
	l.used = l.used[:0]
	clear(l.index)
	l.list = nil
}

// Convert maps one CU's type table to BTF exactly as pahole's
// btf_encoder__encode_tag does (spec §5.2-§5.9); vars are the CU's
// variables to encode, in order. reuse, if not nil, is a spliced fragment
// whose buffers the new one takes over.
func (c *Converter) Convert(tab *loader.TypeTable, vars []Var, reuse ...*btf.Fragment) (*btf.Fragment, error) {
	opts := c.opts
	strs := &c.strs
	strs.reset()
	var types, tail *btf.Types
	var list []string
	if len(reuse) > 0 && reuse[0] != nil {
		types, tail, list = reuse[0].Types, reuse[0].Tail, reuse[0].Strs[:0]
		types.Reset()
		tail.Reset()
	} else {
		types, tail = btf.NewTypes(nil), btf.NewTypes(nil)
	}
	strs.list = list
	n := btf.TypeID(tab.Len())
	index := n + 1 // external: the array index type
	members, values, params := c.members[:0], c.values[:0], c.params[:0]
	defer func() { c.members, c.values, c.params = members[:0], values[:0], params[:0] }()
	for id := btf.TypeID(1); id <= n; id++ {
		en := &tab.Entries[id]
		var got btf.TypeID
		switch en.Tag {
		case dwarf.TagBaseType:
			var err error
			got, err = convertBase(types, strs, en, opts)
			if err != nil {
				return nil, cuError(tab, en, err)
			}
		case dwarf.TagPointerType:
			got = types.AddRef(btf.KindPtr, 0, btf.TypeID(en.Type))
		case dwarf.TagConstType:
			got = types.AddRef(btf.KindConst, 0, btf.TypeID(en.Type))
		case dwarf.TagVolatileType:
			got = types.AddRef(btf.KindVolatile, 0, btf.TypeID(en.Type))
		case dwarf.TagRestrictType:
			got = types.AddRef(btf.KindRestrict, 0, btf.TypeID(en.Type))
		case dwarf.TagTypedef:
			got = types.AddRef(btf.KindTypedef, strs.Add(en.Name), btf.TypeID(en.Type))
		case loader.TagTypeTag:
			got = types.AddTypeTag(strs.Add(en.Name), btf.TypeID(en.Type), false)
		case dwarf.TagStructureType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
			union := en.Tag == dwarf.TagUnionType
			if en.Flags&loader.FlagDeclaration != 0 {
				got = types.AddFwd(strs.Add(en.Name), union)
				break
			}
			if en.Size > math.MaxUint32 {
				return nil, cuError(tab, en, fmt.Errorf("%s of %d bytes: BTF sizes are 32 bits", en.Name, en.Size))
			}
			members = members[:0]
			for _, m := range tab.Members[en.First : en.First+en.Count] {
				if m.BitOffset > math.MaxUint32 {
					return nil, cuError(tab, en, fmt.Errorf("member %s at bit %d: BTF member offsets are 32 bits", m.Name, m.BitOffset))
				}
				members = append(members, btf.Member{Name: strs.Add(m.Name), Type: btf.TypeID(m.Type),
					BitOffset: uint32(m.BitOffset), BitfieldSize: m.BitfieldSize})
			}
			got = types.AddStruct(union, strs.Add(en.Name), uint32(en.Size), members)
		case dwarf.TagEnumerationType:
			if en.Size > math.MaxUint32 {
				return nil, cuError(tab, en, fmt.Errorf("enum %s of %d bytes: BTF sizes are 32 bits", en.Name, en.Size))
			}
			values = values[:0]
			size := uint32(en.Size)
			enum32 := size <= 4 || !opts.Enum64
			negative := false
			for _, ev := range tab.Enums[en.First : en.First+en.Count] {
				v := int64(ev.Value)
				if !opts.Enum64 {
					v = int64(uint32(ev.Value))
				}
				if v < 0 {
					negative = true
				}
				values = append(values, btf.EnumValue{Name: strs.Add(ev.Name), Value: v})
			}
			if enum32 {
				got = types.AddEnum(strs.Add(en.Name), size, negative, values)
			} else {
				got = types.AddEnum64(strs.Add(en.Name), size, en.Flags&loader.FlagSignedEnum != 0, values)
			}
		case dwarf.TagArrayType:
			nelems := uint64(1)
			for _, d := range tab.Dims[en.First : en.First+en.Count] {
				nelems *= uint64(d)
				if d == math.MaxUint32 || nelems >= math.MaxUint32 { // the loader clamps larger counts to MaxUint32
					return nil, cuError(tab, en, fmt.Errorf("array of more than %d elements: BTF counts are 32 bits", uint32(math.MaxUint32)))
				}
			}
			got = types.AddArray(btf.TypeID(en.Type), index, uint32(nelems))
		case dwarf.TagSubroutineType:
			params = params[:0]
			for _, p := range tab.Params[en.First : en.First+en.Count] {
				params = append(params, btf.Param{Name: strs.Add(p.Name), Type: btf.TypeID(p.Type)})
			}
			if en.Flags&loader.FlagVarargs != 0 {
				params = append(params, btf.Param{})
			}
			got = types.AddFuncProto(btf.TypeID(en.Type), params)
		default:
			return nil, cuError(tab, en, fmt.Errorf("unsupported DWARF tag %v: BTF cannot represent it", en.Tag))
		}
		if got != id {
			if err := types.Err(); err != nil {
				// A builder refused the type (e.g. more than 65535 members).
				name := "anonymous"
				if en.Name != "" {
					name = fmt.Sprintf("%q", en.Name)
				}
				return nil, cuError(tab, en, fmt.Errorf("%v %s: %w", en.Tag, name, err))
			}
			return nil, cuError(tab, en, fmt.Errorf("type id drift: got %d, want %d", got, id))
		}
	}

	// References from the tail to CU type x are written as tailLen+x, so the
	// tail's length must be known first: the type decl tags, then each VAR
	// followed by its decl tags.
	tailLen := btf.TypeID(len(tab.DeclTags))
	for _, v := range vars {
		tailLen += 1 + btf.TypeID(len(v.Tags))
	}
	for _, dt := range tab.DeclTags {
		tail.AddDeclTag(strs.Add(dt.Value), tailLen+btf.TypeID(dt.Target), dt.Component)
	}
	frag := &btf.Fragment{Types: types, Tail: tail, IntID: btf.TypeID(tab.IntID), HasArray: tab.HasArray}
	for _, v := range vars {
		id := tail.AddVar(strs.Add(v.Name), tailLen+v.Type, v.Linkage)
		frag.VarIDs = append(frag.VarIDs, id)
		for _, tag := range v.Tags {
			tail.AddDeclTag(strs.Add(tag), id, -1)
		}
	}
	frag.Strs = strs.list
	if err := tail.Err(); err != nil {
		return nil, fmt.Errorf("CU %d (%s): decl tags and variables: %w", tab.Unit.Index, tab.Unit.Name, err)
	}
	if tail.Len() != int(tailLen) {
		return nil, fmt.Errorf("CU %d: tail has %d types, expected %d", tab.Unit.Index, tail.Len(), tailLen)
	}
	return frag, nil
}

// convertBase maps a DW_TAG_base_type (pahole's btf_encoder__add_base_type).
func convertBase(types *btf.Types, strs *localStrings, en *loader.TypeEntry, opts Options) (btf.TypeID, error) {
	var encoding uint8
	switch enc := dwarf.Encoding(en.Encoding); enc {
	case dwarf.EncSigned, dwarf.EncSignedChar:
		encoding = btf.IntSigned
	case dwarf.EncBoolean:
		encoding = btf.IntBool
	case dwarf.EncFloat, dwarf.EncComplexFloat, dwarf.EncImaginaryFloat:
		if opts.Float {
			if enc != dwarf.EncFloat {
				return 0, fmt.Errorf("complex, interval and imaginary float types are not supported (base type %q)", en.Name)
			}
			return types.AddFloat(strs.Add(en.Name), uint32(en.Size)), nil
		}
	}
	size := en.Size
	name := en.Name
	if size == 0 || size > 16 || bits.OnesCount64(size) != 1 {
		name = sanitizedIntName
		size = 4
	}
	return types.AddInt(strs.Add(name), uint32(size), encoding, 0, uint32(size)*8), nil
}

func cuError(tab *loader.TypeTable, en *loader.TypeEntry, err error) error {
	return fmt.Errorf("CU %d (%s) DIE 0x%x: %w", tab.Unit.Index, tab.Unit.Name, en.Offset, err)
}

// slotIndex spreads a key over the slots (Fibonacci hashing).
func slotIndex(h uint64, mask int) int {
	return int((h*11400714819323198485)>>32) & mask
}
