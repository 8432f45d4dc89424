package loader

import (
	"cmp"
	"encoding/binary"
	"slices"
	"sort"
	"strings"

	"github.com/btfgate/btfgate/loader/elffile"
)

// ElfFunc is a function base name from .symtab with its symbols (pahole's
// elf_function, spec §2.2).
type ElfFunc struct {
	Name      string   // symbol name up to its first '.'
	Syms      []ElfSym // the symbols, in symbol-table order
	Ambiguous bool     // two or more distinct addresses (not computed for the last name)
	// Kfunc: named by a __BTF_ID__func__ symbol inside a set8 of
	// .BTF_ids (a kfunc id set, whatever its flags); KfuncFlags is the
	// flags word after its id. PaholeKfunc: that set8's flags have
	// BTF_SET8_KFUNCS (kernels since 6.9), pahole's criterion for the
	// bpf_kfunc decl tag.
	Kfunc       bool
	KfuncFlags  uint32
	PaholeKfunc bool
	// BTFIDRef: named by some __BTF_ID__func__ symbol (kfunc or not).
	BTFIDRef bool
}

// ElfSym is one kept STT_FUNC symbol.
type ElfSym struct {
	Name    string
	Value   uint64
	Size    uint64
	Section uint32
	Bind    uint8
}

// ElfFuncs is the table of function base names, sorted by name.
type ElfFuncs struct {
	Funcs []ElfFunc
	// Any is false when .symtab has no usable STT_FUNC symbol; pahole then
	// encodes no function at all.
	Any bool
	// Regions are the text regions the linker marked, by start address.
	Regions    []TextRegion
	regionsEnd uint64 // the largest End
	// byName maps a name to its index in Funcs; nil in a table built by
	// hand, which Find then searches.
	byName map[string]int32
}

// TextRegion is a range of code a linker script marks with a pair of
// symbols __NAME_text_start and __NAME_text_end: in a vmlinux, the input
// sections .noinstr.text, .entry.text, .irqentry.text, .softirqentry.text,
// .kprobes.text, .cpuidle.text, .sched.text, .spinlock.text (lock) and
// .static_call.text are merged into .text between such markers.
type TextRegion struct {
	Name       string // NAME: "noinstr", "entry", ...
	Section    uint32 // the markers' section index
	Start, End uint64 // [Start, End)
}

// CollectElfFuncs groups the STT_FUNC symbols of syms by base name,
// dropping .cold and .part symbols.
func CollectElfFuncs(syms []elffile.Symbol) *ElfFuncs {
	// The function symbols as the first 8 bytes of the base name (big
	// endian, so that they order as the name does), the symbol index and
	// the base name's length: 16 bytes without pointers, which sort
	// without reading the names most of the time.
	type entry struct {
		prefix       uint64
		sym, baseLen int32
	}
	var all []entry
	var marks regionMarks
	for i := range syms {
		s := &syms[i]
		if strings.HasSuffix(s.Name, "_text_start") || strings.HasSuffix(s.Name, "_text_end") {
			marks.add(s)
		}
		if s.Type() != elffile.STT_FUNC || s.Name == "" {
			continue
		}
		baseLen := len(s.Name)
		if dot := strings.IndexByte(s.Name, '.'); dot >= 0 {
			suffix := s.Name[dot:]
			if strings.Contains(suffix, ".cold") || strings.Contains(suffix, ".part") {
				continue
			}
			baseLen = dot
		}
		all = append(all, entry{namePrefix(s.Name[:baseLen]), int32(i), int32(baseLen)})
	}
	base := func(e entry) string { return syms[e.sym].Name[:e.baseLen] }
	// By base name, then symbol table order (pahole's sort is stable).
	slices.SortFunc(all, func(a, b entry) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		if c := strings.Compare(base(a), base(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.sym, b.sym)
	})
	t := &ElfFuncs{Any: len(all) > 0, Regions: marks.regions()}
	for _, r := range t.Regions {
		t.regionsEnd = max(t.regionsEnd, r.End)
	}
	grouped := make([]ElfSym, len(all)) // the Syms of every name, in one array
	for i, e := range all {
		s := &syms[e.sym]
		grouped[i] = ElfSym{Name: s.Name, Value: s.Value, Size: s.Size, Section: s.Section, Bind: s.Bind()}
	}
	names := 0
	for i := range all {
		if i == 0 || base(all[i]) != base(all[i-1]) {
			names++
		}
	}
	t.Funcs = make([]ElfFunc, 0, names)
	for i := 0; i < len(all); {
		name := base(all[i])
		j := i + 1
		for j < len(all) && base(all[j]) == name {
			j++
		}
		f := ElfFunc{Name: name, Syms: grouped[i:j:j]}
		f.Ambiguous = paholeAmbiguous(f.Syms, j == len(all))
		t.Funcs = append(t.Funcs, f)
		i = j
	}
	t.byName = make(map[string]int32, len(t.Funcs))
	for i := range t.Funcs {
		t.byName[t.Funcs[i].Name] = int32(i)
	}
	return t
}

// namePrefix is the first 8 bytes of name as a big-endian number, zero
// padded: names with different prefixes order as their prefixes do.
func namePrefix(name string) uint64 {
	var b [8]byte
	copy(b[:], name)
	return binary.BigEndian.Uint64(b[:])
}

// Find returns the index of base name name, or -1.
func (t *ElfFuncs) Find(name string) int {
	if t.byName != nil {
		if i, ok := t.byName[name]; ok {
			return int(i)
		}
		return -1
	}
	i := sort.Search(len(t.Funcs), func(i int) bool { return t.Funcs[i].Name >= name })
	if i < len(t.Funcs) && t.Funcs[i].Name == name {
		return i
	}
	return -1
}

// regionMarks collects the __NAME_text_start and __NAME_text_end symbols.
type regionMarks struct {
	start, end map[string]*elffile.Symbol
}

func (m *regionMarks) add(s *elffile.Symbol) {
	if m.start == nil {
		m.start, m.end = map[string]*elffile.Symbol{}, map[string]*elffile.Symbol{}
	}
	name, ok := strings.CutPrefix(s.Name, "__")
	if !ok {
		return
	}
	if n, ok := strings.CutSuffix(name, "_text_start"); ok && n != "" {
		if _, dup := m.start[n]; !dup {
			m.start[n] = s
		}
	} else if n, ok := strings.CutSuffix(name, "_text_end"); ok && n != "" {
		if _, dup := m.end[n]; !dup {
			m.end[n] = s
		}
	}
}

// regions pairs the markers: a region needs both, in one section, with
// start <= end. Sorted by start address, then name.
func (m *regionMarks) regions() []TextRegion {
	var out []TextRegion
	for name, s := range m.start {
		e, ok := m.end[name]
		if !ok || e.Section != s.Section || e.Value < s.Value || s.Section == 0 || s.Section >= 0xff00 {
			continue
		}
		out = append(out, TextRegion{Name: name, Section: s.Section, Start: s.Value, End: e.Value})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// RegionsOf names the text regions that some symbol of f lies in, sorted
// by name; nil if none.
func (t *ElfFuncs) RegionsOf(f *ElfFunc) []string {
	if len(t.Regions) == 0 {
		return nil
	}
	var out []string
	for _, s := range f.Syms {
		if s.Value < t.Regions[0].Start || s.Value >= t.regionsEnd {
			continue // below or above every region: most functions
		}
		for i := range t.Regions {
			r := &t.Regions[i]
			if s.Section == r.Section && s.Value >= r.Start && s.Value < r.End && !slices.Contains(out, r.Name) {
				out = append(out, r.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}
