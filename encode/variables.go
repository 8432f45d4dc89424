package encode

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/convert"
	"github.com/btfgate/btfgate/facts"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/elffile"
)

// varSections is the ELF section table as pahole's variable encoder sees it
// (spec §3.1), shared read-only by the workers.
type varSections struct {
	secs    []elffile.Section
	addrs   []uint64 // load address of each section (laid out for modules)
	include []bool
	objects map[string][]uint32 // STT_OBJECT symbol name -> sections
	force   bool                // encode_force: skip bad variables instead of failing
	file    string
}

const percpuSection = ".data..percpu"

func newVarSections(in *loader.Input, syms []elffile.Symbol, opts Options) *varSections {
	vs := &varSections{secs: in.ELF.Sections, include: make([]bool, len(in.ELF.Sections)),
		force: opts.Features.EncodeForce, file: in.Path}
	for i := range in.ELF.Sections {
		vs.addrs = append(vs.addrs, in.ELF.LoadAddr(i))
	}
	for i, s := range in.ELF.Sections {
		if opts.Features.GlobalVar || (opts.Features.Var && s.Name == percpuSection) {
			vs.include[i] = true
		}
	}
	// Every variable's facts say whether its section has a symbol of its
	// name, encoded or not.
	vs.objects = map[string][]uint32{}
	for i := range syms {
		if syms[i].Type() == elffile.STT_OBJECT {
			vs.objects[syms[i].Name] = append(vs.objects[syms[i].Name], syms[i].Section)
		}
	}
	return vs
}

// secinfo is one DATASEC entry, with the VAR id still tail-local.
type secinfo struct {
	section uint32
	varIdx  int // index into the CU's encoded variables
	fact    int // index into the CU's variable facts
	offset  uint32
	size    uint32
}

// cuVars is what filterVars finds in one CU: the variables pahole encodes
// (vars, with their DATASEC entries in infos) and the facts of every
// variable with a static address (facts; IDs still CU-local, from 0).
type cuVars struct {
	vars  []convert.Var
	infos []secinfo
	facts []facts.Variable
}

// filterVars applies pahole's variable filter (spec §3.2) to a CU's
// variables: it encodes those pahole encodes and records every candidate's
// facts with the reason pahole leaves it out. A name BTF cannot hold and a
// void type fail the encode, as in pahole, unless encode_force is on.
// The facts are appended to into[:0] (a spliced unit's, for reuse).
func filterVars(tab *loader.TypeTable, vs *varSections, into []facts.Variable) (cuVars, error) {
	out := cuVars{facts: into[:0]}
	if vs.objects == nil {
		return out, nil
	}
	for i := range tab.Vars {
		v := &tab.Vars[i]
		if v.Flags&loader.VarDeclaration != 0 && v.Flags&loader.VarHasSpec == 0 {
			continue
		}
		if v.Flags&loader.VarArtificial != 0 || v.Flags&loader.VarScopeGlobal == 0 {
			continue
		}
		f := varFact(tab, vs, v)
		out.facts = append(out.facts, f)
		if f.PaholeSkip != "" {
			continue
		}
		if !f.ValidName {
			return out, fmt.Errorf("%s: CU %s: variable %q (DIE %#x) has a name BTF cannot hold (use the encode_force feature to skip it)",
				vs.file, tab.Unit.Name, v.Name, v.Offset)
		}
		if f.VoidType {
			return out, fmt.Errorf("%s: CU %s: variable %q (DIE %#x) has void type (use the encode_force feature to skip it)",
				vs.file, tab.Unit.Name, v.Name, v.Offset)
		}
		linkage := uint32(btf.VarStatic)
		if f.External {
			linkage = btf.VarGlobalAllocated
		}
		cv := convert.Var{Name: v.Name, Type: btf.TypeID(v.Type), Linkage: linkage}
		if v.AnnotCount > 0 {
			cv.Tags = tab.VarAnnots[v.AnnotFirst : v.AnnotFirst+v.AnnotCount]
		}
		out.infos = append(out.infos, secinfo{section: uint32(vs.section(v.Addr)), varIdx: len(out.vars),
			fact: len(out.facts) - 1, offset: uint32(f.Offset), size: uint32(f.Size)})
		out.vars = append(out.vars, cv)
	}
	return out, nil
}

// varFact is one candidate variable's facts, PaholeSkip set to the first
// of pahole's reasons that applies (spec §3.2 steps 3 to 11).
func varFact(tab *loader.TypeTable, vs *varSections, v *loader.Var) facts.Variable {
	f := facts.Variable{Name: strings.Clone(v.Name), Addr: v.Addr, Offset: v.Addr, CU: tab.Unit.Index, DIE: v.Offset,
		External: v.Flags&loader.VarExternal != 0, VoidType: v.Type == 0, Type: "void"}
	f.ValidName = validBTFName(v.Name)
	f.NameFiltered = v.Name != "" && filteredVarName(v.Name)
	if v.Type != 0 {
		f.Type = tab.TypeName(v.Type)
		f.Size = tab.VarSize(v.Type)
	}
	shndx := vs.section(v.Addr)
	if shndx != 0 {
		f.Section = vs.secs[shndx].Name
		f.Offset = v.Addr - vs.addrs[shndx]
		f.Percpu = f.Section == percpuSection
		f.InSymtab = vs.objectIn(v.Name, uint32(shndx))
	}
	switch {
	case shndx == 0:
		f.PaholeSkip = facts.VarSkipNoSection
	case !vs.include[shndx]:
		f.PaholeSkip = facts.VarSkipSection
	case v.Name == "":
		f.PaholeSkip = facts.VarSkipNoName
	case f.NameFiltered:
		f.PaholeSkip = facts.VarSkipFilteredName
	case f.Offset == 0 && !f.InSymtab:
		f.PaholeSkip = facts.VarSkipNoSymbol
	case !f.ValidName && vs.force:
		f.PaholeSkip = facts.VarSkipInvalidName
	case !f.ValidName:
		// an error, unless the policies leave it out (filterVars)
	case f.VoidType && vs.force:
		f.PaholeSkip = facts.VarSkipVoidType
	case f.VoidType:
	case f.Size == 0 || f.Size > 1<<32-1:
		f.PaholeSkip = facts.VarSkipZeroSize
	case f.Offset > 1<<32-1:
		f.PaholeSkip = facts.VarSkipFarOffset
	}
	return f
}

// section is pahole's get_elf_section: the first PROGBITS or NOBITS section
// (from index 1) whose address range holds addr, 0 if none.
func (vs *varSections) section(addr uint64) int {
	for i := 1; i < len(vs.secs); i++ {
		s := &vs.secs[i]
		if s.Type != elffile.SHT_PROGBITS && s.Type != elffile.SHT_NOBITS {
			continue
		}
		if a := vs.addrs[i]; a <= addr && addr-a < s.Size {
			return i
		}
	}
	return 0
}

func (vs *varSections) objectIn(name string, shndx uint32) bool {
	for _, s := range vs.objects[name] {
		if s == shndx {
			return true
		}
	}
	return false
}

// filteredVarName: pahole's filter_variable_name prefixes.
func filteredVarName(name string) bool {
	if name[0] != '_' {
		return false
	}
	for _, p := range [...]string{"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_", "__func_stack_frame_non_standard_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// validBTFName is pahole's btf_name_valid: [A-Za-z_.][A-Za-z0-9_.]*, at
// most 128 characters.
func validBTFName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// droppedEntry is a DATASEC entry left out because it overlaps an entry
// kept before it.
type droppedEntry struct {
	section string
	info    btf.VarSecinfo
	// repeat: the entry kept at the same offset is a VAR of the same name
	// (a variable declared in two units); otherwise a different variable
	// (an alias the linker folded, a variable stored in fewer bytes than
	// its type).
	repeat bool
}

// emitDatasecs appends one DATASEC per section with variables, in section
// index order; entries sorted by offset (stably). The kernel refuses an
// entry that starts before the end of any entry before it, and an entry
// smaller than its VAR's type, so such an entry is dropped, not trimmed:
// the first entry in (offset, encoding) order is kept and every later one
// overlapping it is returned as dropped. Its VAR stays in the BTF. The
// size is pahole's, the last entry's offset + size (dropped ones included),
// or the end of the furthest kept entry if that is larger.
func emitDatasecs(types *btf.Types, entries []datasecEntry, secs []elffile.Section) []droppedEntry {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].section < entries[j].section })
	var infos []btf.VarSecinfo
	var dropped []droppedEntry
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].section == entries[i].section {
			j++
		}
		infos = infos[:0]
		for _, e := range entries[i:j] {
			infos = append(infos, e.info)
		}
		sort.SliceStable(infos, func(a, b int) bool { return infos[a].Offset < infos[b].Offset })
		last := infos[len(infos)-1]
		size := uint64(last.Offset) + uint64(last.Size)
		name := secs[entries[i].section].Name
		kept := infos[:0]
		end := uint64(0)
		for _, e := range infos {
			if len(kept) > 0 && uint64(e.Offset) < end {
				prev := kept[len(kept)-1]
				repeat := prev.Offset == e.Offset && types.Name(prev.Type) == types.Name(e.Type)
				dropped = append(dropped, droppedEntry{section: name, info: e, repeat: repeat})
				continue
			}
			kept = append(kept, e)
			end = max(end, uint64(e.Offset)+uint64(e.Size))
		}
		types.AddDatasec(types.Strings.Add(name), uint32(max(size, end)), kept)
		i = j
	}
	return dropped
}

// overlapWarning says how many DATASEC entries emitDatasecs dropped, of
// which kind, and names the first few.
func overlapWarning(types *btf.Types, dropped []droppedEntry) string {
	repeats := 0
	for _, d := range dropped {
		if d.repeat {
			repeats++
		}
	}
	var names []string
	for _, d := range dropped[:min(len(dropped), 4)] {
		names = append(names, fmt.Sprintf("%s %s at %#x", d.section, types.Name(d.info.Type), d.info.Offset))
	}
	more := ""
	if len(dropped) > len(names) {
		more = ", ..."
	}
	return fmt.Sprintf("%d DATASEC entries dropped (%d repeats of a variable, %d other variables) that overlap an entry "+
		"before them, which the kernel refuses (pahole 1.31 writes them; their VARs stay): %s%s",
		len(dropped), repeats, len(dropped)-repeats, strings.Join(names, ", "), more)
}
