package dwarf

import (
	"testing"

	"github.com/btfgate/btfgate/internal/cputime"
)

// The benchmarks here measure the first question of "a sketch for
// recognising copies at the walk" (docs/performance.md): what it costs to
// hash the type DIEs of the corpus kernel's units without decoding them,
// against decoding them as the walk does. Neither is used by the encoder.

// skimKept is what the walk reads: a copy of loader.walkedAttrs, which a
// test of this package cannot import (loader imports it). The skim hashes
// those attributes' bytes and lists their references, and passes over the
// rest.
var skimKept = NewAttrSet(
	AttrAbstractOrigin, AttrArtificial, AttrBitOffset, AttrBitSize,
	AttrByteSize, AttrCallingConvention, AttrConstValue, AttrCount,
	AttrDataBitOffset, AttrDataMemberLocation, AttrDeclaration, AttrEncoding,
	AttrExternal, AttrGNUVector, AttrInline, AttrLocation, AttrLowPc,
	AttrName, AttrNoreturn, AttrSpecification, AttrType, AttrUpperBound,
)

// isSkimTag reports whether a top-level DIE is a type the skim covers.
func isSkimTag(t Tag) bool {
	switch t {
	case TagStructureType, TagUnionType, TagEnumerationType, TagTypedef, TagPointerType,
		TagArrayType, TagSubroutineType, TagConstType, TagVolatileType, TagBaseType, TagRestrictType:
		return true
	}
	return false
}

// benchTypeDIEs runs each over the corpus kernel's top-level type DIEs
// with their subtrees, and reports the time per DIE.
func benchTypeDIEs(b *testing.B, each func(r *Reader, e *Entry) int) {
	_, d, units := vmlinuxUnits(b)
	r := d.NewReader()
	r.Keep(skimKept)
	var e Entry
	dies := 0
	cpu0 := cputime.Process()
	for b.Loop() {
		dies = 0
		for i := range units {
			if err := r.Seek(&units[i]); err != nil {
				b.Fatal(err)
			}
			if !r.Next(&e) || !e.Children {
				continue
			}
			for {
				at := r.pos
				if !r.Next(&e) || e.Tag == 0 {
					break
				}
				if !isSkimTag(e.Tag) {
					r.SkipChildren()
					continue
				}
				r.pos, r.lastChildren = at, false
				dies += each(r, &e)
			}
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/float64(dies), "cpu-ns/DIE")
	b.ReportMetric(float64(dies), "DIEs")
}

// BenchmarkDecodeTypeDIEs decodes each top-level type DIE's subtree with
// Next, keeping the walk's attributes.
func BenchmarkDecodeTypeDIEs(b *testing.B) {
	benchTypeDIEs(b, func(r *Reader, e *Entry) int {
		n := 0
		for depth := 0; r.Next(e); {
			if e.Tag == 0 {
				depth--
			} else {
				n++
				if e.Children {
					depth++
				}
			}
			if depth <= 0 {
				break
			}
		}
		return n
	})
}

// skimPlan is an abbreviation's skim, when all its attributes have fixed
// sizes: the walked fields to hash and the references, by offset in the
// DIE after its code.
type skimPlan struct {
	ok       bool // fixed size: the plan applies
	size     int
	tag      Tag
	children bool
	fields   []skimField
	refs     []skimField
}

type skimField struct{ off, n int }

// skimPlans builds the plans of the unit's abbreviations, by index in
// r.tab.list.
func (r *Reader) skimPlans(plans []skimPlan) []skimPlan {
	plans = plans[:0]
	for i := range r.tab.list {
		ab := &r.tab.list[i]
		p := skimPlan{ok: ab.fixedSize >= 0, size: int(ab.fixedSize), tag: ab.tag, children: ab.children}
		off := 0
		for j := range ab.specs {
			s := &ab.specs[j]
			if s.size < 0 {
				p.ok = false
				break
			}
			if skimKept.Has(Attr(s.attr)) && s.size > 0 {
				switch s.fast {
				case fastRef1, fastRef2, fastRef4, fastRef8:
					p.refs = append(p.refs, skimField{off, int(s.size)})
				default:
					if s.size <= 8 {
						p.fields = append(p.fields, skimField{off, int(s.size)})
					} else {
						p.ok = false
					}
				}
			}
			off += int(s.size)
		}
		plans = append(plans, p)
	}
	return plans
}

// skimFast hashes the DIE at r.pos and its subtree: each DIE's tag and
// the bytes of its walked attributes, references left out (their unit
// offsets appended to refs), through the plans of fixed-size
// abbreviations (skimOne for the others). It returns the hash, the
// references, the number of DIEs and the position after the subtree, or
// -1 on bad input.
func (r *Reader) skimFast(plans []skimPlan, refs []uint32) (uint64, []uint32, int, int) {
	info, pos := r.info, r.pos
	h := uint64(0x9e3779b97f4a7c15)
	dies := 0
	for depth := 0; ; {
		if pos >= len(info) {
			return 0, refs, dies, -1
		}
		at := pos
		var code uint64
		if code, pos = uleb(info, pos); pos < 0 {
			return 0, refs, dies, -1
		}
		if code == 0 {
			h = (h ^ 0xff) * 0x100000001b3
			depth--
			if depth <= 0 {
				return h, refs, dies, pos
			}
			continue
		}
		idx := int32(-1)
		if code < uint64(len(r.tab.dense)) {
			idx = r.tab.dense[code] - 1
		}
		if idx < 0 || !plans[idx].ok {
			// Rare: this DIE attribute by attribute.
			var sub uint64
			var children bool
			sub, refs, pos, children = r.skimOne(at, refs)
			if pos < 0 {
				return 0, refs, dies, -1
			}
			h = (h ^ sub) * 0x100000001b3
			dies++
			if children {
				depth++
			} else if depth == 0 {
				return h, refs, dies, pos
			}
			continue
		}
		p := &plans[idx]
		if pos+p.size > len(info) {
			return 0, refs, dies, -1
		}
		dies++
		h = (h ^ uint64(p.tag)) * 0x100000001b3
		for _, f := range p.fields {
			var x uint64
			if at := pos + f.off; at+8 <= len(info) {
				x = get64(info[at:], true) & (1<<(8*f.n) - 1 | -(uint64(f.n) >> 3))
			} else {
				x = getN(info[at:at+f.n], f.n, true)
			}
			h = (h ^ x) * 0x100000001b3
			h ^= h >> 29
		}
		for _, f := range p.refs {
			refs = append(refs, uint32(getN(info[pos+f.off:pos+f.off+f.n], f.n, r.le)))
		}
		pos += p.size
		if p.children {
			depth++
		} else if depth == 0 {
			return h, refs, dies, pos
		}
	}
}

// skimOne skims the one DIE at pos, not its children, attribute by
// attribute: its hash, refs with its references appended, the position
// after it (-1 on bad input) and whether it has children.
func (r *Reader) skimOne(pos int, refs []uint32) (uint64, []uint32, int, bool) {
	info := r.info
	code, pos := uleb(info, pos)
	if pos < 0 {
		return 0, refs, -1, false
	}
	ab := r.tab.lookup(code)
	if ab == nil {
		return 0, refs, -1, false
	}
	h := uint64(ab.tag)
	for i := range ab.specs {
		s := &ab.specs[i]
		start := pos
		if s.size >= 0 {
			pos += int(s.size)
		} else if pos = r.skip(s.kind, int(s.size), pos); pos < 0 {
			return 0, refs, -1, false
		}
		if !skimKept.Has(Attr(s.attr)) {
			continue
		}
		if s.fast >= fastRef1 && s.fast <= fastRef8 {
			refs = append(refs, uint32(getN(info[start:pos], pos-start, r.le)))
			continue
		}
		for _, b := range info[start:pos] {
			h = (h ^ uint64(b)) * 0x100000001b3
		}
	}
	return h, refs, pos, ab.children
}

// BenchmarkSkimTypeDIEs hashes each top-level type DIE's subtree
// (skimFast).
func BenchmarkSkimTypeDIEs(b *testing.B) {
	var refs []uint32
	var plans []skimPlan
	unit := -1
	benchTypeDIEs(b, func(r *Reader, e *Entry) int {
		if r.unitIdx != unit { // a Reader reuses its table's memory
			unit = r.unitIdx
			plans = r.skimPlans(plans)
		}
		_, rs, n, end := r.skimFast(plans, refs[:0])
		if end < 0 {
			b.Fatalf("bad DIE at %#x", r.pos)
		}
		refs = rs
		r.pos = end
		return n
	})
}

// BenchmarkBaseTypeDIEs is the harness alone: each top-level type DIE is
// decoded and its children skipped. The others' cost of the subtrees is
// theirs less this.
func BenchmarkBaseTypeDIEs(b *testing.B) {
	benchTypeDIEs(b, func(r *Reader, e *Entry) int {
		r.Next(e)
		r.SkipChildren()
		return 1
	})
}
