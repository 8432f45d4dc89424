package loader

import (
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
	// Kfunc: named by a __BTF_ID__func__ symbol inside a kfunc set8 of
	// .BTF_ids; KfuncFlags is the flags word after its id.
	Kfunc      bool
	KfuncFlags uint32
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
}

// CollectElfFuncs groups the STT_FUNC symbols of syms by base name,
// dropping .cold and .part symbols.
func CollectElfFuncs(syms []elffile.Symbol) *ElfFuncs {
	type entry struct {
		base string
		sym  ElfSym
	}
	var all []entry
	for i := range syms {
		s := &syms[i]
		if s.Type() != elffile.STT_FUNC || s.Name == "" {
			continue
		}
		base := s.Name
		if dot := strings.IndexByte(s.Name, '.'); dot >= 0 {
			suffix := s.Name[dot:]
			if strings.Contains(suffix, ".cold") || strings.Contains(suffix, ".part") {
				continue
			}
			base = s.Name[:dot]
		}
		all = append(all, entry{base, ElfSym{Name: s.Name, Value: s.Value, Size: s.Size, Section: s.Section, Bind: s.Bind()}})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].base < all[j].base })
	t := &ElfFuncs{Any: len(all) > 0}
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].base == all[i].base {
			j++
		}
		f := ElfFunc{Name: all[i].base, Syms: make([]ElfSym, 0, j-i)}
		for k := i; k < j; k++ {
			f.Syms = append(f.Syms, all[k].sym)
		}
		// pahole computes the flag while moving on to the next name, so the
		// last name never gets it (spec §2.9 b).
		if j < len(all) {
			f.Ambiguous = ambiguous(f.Syms)
		}
		t.Funcs = append(t.Funcs, f)
		i = j
	}
	return t
}

// ambiguous is pahole's elf_function__has_ambiguous_address, including its
// treatment of a zero first address.
func ambiguous(syms []ElfSym) bool {
	if len(syms) <= 1 {
		return false
	}
	var addr uint64
	for _, s := range syms {
		if addr != 0 && addr != s.Value {
			return true
		}
		addr = s.Value
	}
	return false
}

// Find returns the index of base name name, or -1.
func (t *ElfFuncs) Find(name string) int {
	i := sort.Search(len(t.Funcs), func(i int) bool { return t.Funcs[i].Name >= name })
	if i < len(t.Funcs) && t.Funcs[i].Name == name {
		return i
	}
	return -1
}
