package encode

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/convert"
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
	any := false
	for i, s := range in.ELF.Sections {
		if opts.Features.GlobalVar || (opts.Features.Var && s.Name == percpuSection) {
			vs.include[i] = true
			any = true
		}
	}
	if !any {
		return vs
	}
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
	offset  uint32
	size    uint32
}

// filterVars applies pahole's variable filter (spec §3.2) to a CU's
// variables, returning those to encode and their DATASEC entries.
func filterVars(tab *loader.TypeTable, vs *varSections) ([]convert.Var, []secinfo, error) {
	if vs.objects == nil {
		return nil, nil, nil
	}
	var out []convert.Var
	var infos []secinfo
	for i := range tab.Vars {
		v := &tab.Vars[i]
		if v.Flags&loader.VarDeclaration != 0 && v.Flags&loader.VarHasSpec == 0 {
			continue
		}
		if v.Flags&loader.VarArtificial != 0 || v.Flags&loader.VarScopeGlobal == 0 {
			continue
		}
		shndx := vs.section(v.Addr)
		if shndx == 0 || !vs.include[shndx] {
			continue
		}
		off := v.Addr - vs.addrs[shndx]
		if v.Name == "" || filteredVarName(v.Name) {
			continue
		}
		if off == 0 && !vs.objectIn(v.Name, uint32(shndx)) {
			continue
		}
		if !validBTFName(v.Name) {
			if vs.force {
				continue
			}
			return nil, nil, fmt.Errorf("%s: CU %s: variable %q has a name BTF cannot hold (use the encode_force feature to skip it)",
				vs.file, tab.Unit.Name, v.Name)
		}
		if v.Type == 0 {
			if vs.force {
				continue
			}
			return nil, nil, fmt.Errorf("%s: CU %s: variable %q has void type (use the encode_force feature to skip it)",
				vs.file, tab.Unit.Name, v.Name)
		}
		size := tab.VarSize(v.Type)
		if size == 0 || size > 1<<32-1 || off > 1<<32-1 {
			continue
		}
		linkage := uint32(btf.VarStatic)
		if v.Flags&loader.VarExternal != 0 {
			linkage = btf.VarGlobalAllocated
		}
		cv := convert.Var{Name: v.Name, Type: btf.TypeID(v.Type), Linkage: linkage}
		if v.AnnotCount > 0 {
			cv.Tags = tab.VarAnnots[v.AnnotFirst : v.AnnotFirst+v.AnnotCount]
		}
		infos = append(infos, secinfo{section: uint32(shndx), varIdx: len(out), offset: uint32(off), size: uint32(size)})
		out = append(out, cv)
	}
	return out, infos, nil
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

// datasecEntry is a DATASEC entry with a global VAR id.
type datasecEntry struct {
	section uint32
	info    btf.VarSecinfo
}

// emitDatasecs appends one DATASEC per section with variables, in section
// index order; entries sorted by offset (stably), size = last offset + size.
func emitDatasecs(types *btf.Types, entries []datasecEntry, secs []elffile.Section) {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].section < entries[j].section })
	var infos []btf.VarSecinfo
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
		types.AddDatasec(types.Strings.Add(secs[entries[i].section].Name), last.Offset+last.Size, infos)
		i = j
	}
}
