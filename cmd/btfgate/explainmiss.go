package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/gobwas/glob"

	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
	"github.com/btfgate/btfgate/loader/elffile"
)

// nameIndex finds function groups by name, clone symbol or glob.
type nameIndex struct {
	names  []string       // group names, in group order
	byName map[string]int // group name to index
}

func newNameIndex(res *encode.Result) *nameIndex {
	x := &nameIndex{byName: make(map[string]int, len(res.Functions))}
	for i, f := range res.Functions {
		x.names = append(x.names, f.Name)
		x.byName[f.Name] = i
	}
	return x
}

// isGlob reports whether name uses the policies' glob syntax.
func isGlob(name string) bool { return strings.ContainsAny(name, "*?[{") }

// lookup returns the groups name stands for and, when it is not a group
// name itself, a note saying how it was matched.
func (x *nameIndex) lookup(name string) ([]int, string) {
	if i, ok := x.byName[name]; ok {
		return []int{i}, ""
	}
	if isGlob(name) {
		g, err := glob.Compile(name)
		if err != nil {
			return nil, ""
		}
		var out []int
		for i, n := range x.names {
			if g.Match(n) {
				out = append(out, i)
			}
		}
		return out, ""
	}
	if dot := strings.IndexByte(name, '.'); dot > 0 {
		if i, ok := x.byName[name[:dot]]; ok {
			return []int{i}, fmt.Sprintf("a clone symbol of the function group %s (a group is every symbol with the base name before the first '.'; its FUNC is named %s)", name[:dot], name[:dot])
		}
	}
	return nil, ""
}

// closest returns up to three group names within a third of name's
// length in edits (two at least: a transposition), nearest first.
func (x *nameIndex) closest(name string) []string {
	if isGlob(name) {
		return nil
	}
	limit := max(2, len(name)/3) + 1
	type cand struct {
		n string
		d int
	}
	var cs []cand
	for _, n := range x.names {
		if d := len(n) - len(name); d >= limit || -d >= limit {
			continue
		}
		if d := levenshtein.ComputeDistance(name, n); d < limit {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].n)
	}
	return out
}

// miss is what explain found about a name that is no function group.
type miss struct {
	Name string `json:"query"`
	// Kind: "glob" (a pattern matching no group), "symbol_without_dwarf",
	// "inline_only", "dwarf_without_symbol", "not_a_function" (a symbol
	// of another type), "unknown" (no symbol, no DWARF subprogram),
	// "not_in_report".
	Kind    string   `json:"miss"`
	Message string   `json:"message"`
	Suggest []string `json:"did_you_mean,omitempty"`
	// Symbols are the ELF symbols with exactly this name.
	Symbols []missSymbol `json:"symbols,omitempty"`
	// Subprograms counts the DWARF subprograms named so that are not
	// declarations (abstract roots, definitions), Declarations those with
	// DW_AT_declaration; Inlined the inlined copies of them.
	Subprograms  int `json:"dwarf_subprograms"`
	Declarations int `json:"dwarf_declarations"`
	Inlined      int `json:"inlined_copies"`
}

type missSymbol struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value uint64 `json:"value"` // written with value_hex beside it
}

func (m *miss) write(w io.Writer) {
	fmt.Fprintf(w, "%s: no function group: %s\n", m.Name, m.Message)
	if len(m.Suggest) > 0 {
		fmt.Fprintf(w, "  did you mean: %s\n", strings.Join(m.Suggest, ", "))
	}
	fmt.Fprintln(w)
}

// classifyMisses says, for each name, why no function group has it. With
// input "" (a report) it can only suggest names; otherwise it reads the
// input's symbol table and, for names no symbol has, its DWARF.
//
// progress, if set, is called as compile units are scanned.
// supplement is --dwarf-supplement.
func classifyMisses(input, supplement string, names []string, idx *nameIndex, progress func(done, total int)) (map[string]*miss, error) {
	out := make(map[string]*miss, len(names))
	for _, n := range names {
		out[n] = &miss{Name: n, Suggest: idx.closest(n)}
	}
	var rest []*miss
	for _, n := range names {
		m := out[n]
		switch {
		case isGlob(n):
			m.Kind, m.Message = "glob", "the pattern matches no function group"
			if _, err := glob.Compile(n); err != nil {
				m.Message = fmt.Sprintf("the pattern does not compile: %v", err)
			}
		case input == "":
			m.Kind, m.Message = "not_in_report", "the report has no function of this name"
		default:
			rest = append(rest, m)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	in, err := loader.OpenWith(input, loader.OpenOptions{Supplement: supplement})
	if err != nil {
		return nil, err
	}
	defer in.Close()
	syms, err := in.ELF.Symbols()
	if err != nil {
		return nil, err
	}
	byName := map[string]*miss{}
	for _, m := range rest {
		byName[m.Name] = m
	}
	for _, s := range syms {
		if m := byName[s.Name]; m != nil && s.Section != 0 {
			m.Symbols = append(m.Symbols, missSymbol{s.Name, symType(s.Type()), s.Value})
		}
	}
	if err := countSubprograms(in, byName, progress); err != nil {
		return nil, err
	}
	for _, m := range rest {
		classify(m)
	}
	return out, nil
}

func symType(t uint8) string {
	switch t {
	case elffile.STT_FUNC:
		return "FUNC"
	case elffile.STT_OBJECT:
		return "OBJECT"
	case elffile.STT_NOTYPE:
		return "NOTYPE"
	}
	return fmt.Sprintf("type %d", t)
}

// classify sets m's kind and message from its symbols and DWARF counts.
func classify(m *miss) {
	var fn *missSymbol
	for i := range m.Symbols {
		if m.Symbols[i].Type == "FUNC" || m.Symbols[i].Type == "NOTYPE" {
			fn = &m.Symbols[i]
			break
		}
	}
	switch {
	case fn != nil && m.Subprograms == 0:
		m.Kind = "symbol_without_dwarf"
		m.Message = fmt.Sprintf("symbol without DWARF: %s symbol %s at %#x has no DWARF definition (assembly, or a unit built without debug info); BTF describes only functions with a DWARF definition",
			fn.Type, fn.Name, fn.Value)
		if m.Declarations > 0 {
			m.Message += fmt.Sprintf(" (C code declares it %d time(s))", m.Declarations)
		}
	case fn != nil:
		m.Kind = "symbol_with_dwarf"
		m.Message = fmt.Sprintf("%s symbol %s at %#x and %d DWARF subprogram(s) of this name, but no definition joined them into a group",
			fn.Type, fn.Name, fn.Value, m.Subprograms)
	case len(m.Symbols) > 0:
		m.Kind = "not_a_function"
		m.Message = fmt.Sprintf("%s is a %s symbol, not a function", m.Name, m.Symbols[0].Type)
	case m.Inlined > 0:
		m.Kind = "inline_only"
		m.Message = fmt.Sprintf("inline only: %d inlined copies, no out-of-line symbol (%d DWARF subprogram(s) of this name); only functions with a symbol can be in BTF", m.Inlined, m.Subprograms)
	case m.Subprograms > 0 || m.Declarations > 0:
		m.Kind = "dwarf_without_symbol"
		m.Message = fmt.Sprintf("no symbol and no inlined copy; DWARF has %d definition(s) and %d declaration(s) of this name (never called, or discarded by the linker)", m.Subprograms, m.Declarations)
	default:
		m.Kind = "unknown"
		m.Message = "no symbol and no DWARF subprogram has this name"
		return
	}
	m.Suggest = nil // classified: a close name would mislead
}

// countSubprograms counts, for each name in want, the DWARF subprograms
// named so and the inlined subroutines whose abstract origin is one of
// them, walking every unit of in.
func countSubprograms(in *loader.Input, want map[string]*miss, progress func(done, total int)) error {
	keep := dwarf.NewAttrSet(dwarf.AttrName, dwarf.AttrAbstractOrigin, dwarf.AttrDeclaration)
	origins := map[uint64]*miss{} // subprogram DIE offset to its name's miss
	inlined := map[uint64]int{}   // abstract origin to inlined copies
	r := in.DWARF.NewReader()
	r.Keep(keep)
	var e dwarf.Entry
	for ui := range in.Units {
		u := &in.Units[ui]
		if err := r.Seek(u); err != nil {
			return fmt.Errorf("%s: %w", in.Path, err)
		}
		for r.Next(&e) {
			switch e.Tag {
			case dwarf.TagSubprogram:
				if m := want[e.Name()]; m != nil {
					if decl, _ := e.Val(dwarf.AttrDeclaration); decl != 0 {
						m.Declarations++
						continue
					}
					m.Subprograms++
					origins[e.Offset] = m
				}
			case dwarf.TagInlinedSubroutine:
				if o, ok := e.Val(dwarf.AttrAbstractOrigin); ok {
					inlined[o]++
				}
			}
		}
		if err := r.Err(); err != nil {
			return fmt.Errorf("%s: %w", in.Path, err)
		}
		if progress != nil {
			progress(ui+1, len(in.Units))
		}
	}
	for off, m := range origins {
		m.Inlined += inlined[off]
	}
	return nil
}
