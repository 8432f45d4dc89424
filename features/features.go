// Package features parses pahole's btf_features lists ("default",
// "+name", "a,b,c") into the set of encoding features a run uses.
//
// The names, their meaning and which are in "default" follow pahole
// (../shared/docs/pahole-behaviour.md §1).
package features

import (
	"fmt"
	"sort"
	"strings"
)

// Set holds the features of one encode. The zero value has every feature off.
type Set struct {
	EncodeForce       bool // encode_force: skip bad variables instead of failing
	Var               bool // var: percpu variables
	Float             bool // float: BTF_KIND_FLOAT for floating-point types
	DeclTag           bool // decl_tag: btf_decl_tag annotations
	TypeTag           bool // type_tag: btf_type_tag annotations on pointers
	Enum64            bool // enum64: BTF_KIND_ENUM64 for enums wider than 4 bytes
	OptimizedFunc     bool // optimized_func: no-op since pahole 1.31
	ConsistentFunc    bool // consistent_func: skip functions with inconsistent prototypes
	DeclTagKfuncs     bool // decl_tag_kfuncs: bpf_kfunc/bpf_fastcall decl tags
	ReproducibleBuild bool // reproducible_build: no-op, output is always deterministic
	DistilledBase     bool // distilled_base: .BTF.base for split BTF written into an ELF
	GlobalVar         bool // global_var: variables of every section
	Attributes        bool // attributes: arena address_space type tags on kfuncs
	TrueSignature     bool // true_signature: dotted clone names with their real signatures
	Layout            bool // layout: kind layout section in base BTF
}

// feature describes one name pahole accepts: whether "default" holds it,
// the Set field it sets, what it does, and the older pahole options that
// turn it on (on) or off (off) on their own.
type feature struct {
	name      string
	inDefault bool
	field     func(*Set) *bool
	help      string
	on, off   string
}

func table() []feature {
	return []feature{
		{"encode_force", true, func(s *Set) *bool { return &s.EncodeForce }, "skip variables with invalid names or void type instead of failing", "--btf_encode_force", ""},
		{"var", true, func(s *Set) *bool { return &s.Var }, "encode percpu variables (VAR + .data..percpu DATASEC)", "", "--skip_encoding_btf_vars"},
		{"float", true, func(s *Set) *bool { return &s.Float }, "encode float, double and long double as FLOAT instead of INT", "--btf_gen_floats", ""},
		{"decl_tag", true, func(s *Set) *bool { return &s.DeclTag }, "encode btf_decl_tag annotations as DECL_TAG", "", "--skip_encoding_btf_decl_tag"},
		{"type_tag", true, func(s *Set) *bool { return &s.TypeTag }, "encode btf_type_tag annotations on pointers as TYPE_TAG", "", "--skip_encoding_btf_type_tag"},
		{"enum64", true, func(s *Set) *bool { return &s.Enum64 }, "encode enums wider than 4 bytes as ENUM64", "", "--skip_encoding_btf_enum64"},
		{"optimized_func", true, func(s *Set) *bool { return &s.OptimizedFunc }, "no-op (kept for compatibility; pahole >= 1.31 always matches clones)", "--btf_gen_optimized", ""},
		{"consistent_func", true, func(s *Set) *bool { return &s.ConsistentFunc }, "skip functions whose instances have inconsistent prototypes", "--skip_encoding_btf_inconsistent_proto", ""},
		{"decl_tag_kfuncs", true, func(s *Set) *bool { return &s.DeclTagKfuncs }, "tag kfuncs from .BTF_ids with bpf_kfunc / bpf_fastcall", "", ""},
		{"reproducible_build", false, func(s *Set) *bool { return &s.ReproducibleBuild }, "no-op: output is always deterministic", "--reproducible_build", ""},
		{"distilled_base", false, func(s *Set) *bool { return &s.DistilledBase }, "write .BTF.base with a distilled base for split BTF in ELF output", "", ""},
		{"global_var", false, func(s *Set) *bool { return &s.GlobalVar }, "encode variables of every section, not only percpu", "", ""},
		{"attributes", false, func(s *Set) *bool { return &s.Attributes }, "add arena address_space(1) type tags to kfunc pointers", "--btf_attributes", ""},
		{"true_signature", false, func(s *Set) *bool { return &s.TrueSignature }, "emit optimized clones (foo.isra.0) with their true signatures", "", ""},
		{"layout", false, func(s *Set) *bool { return &s.Layout }, "add the kind layout section to base BTF", "", ""},
	}
}

// Default returns pahole's --btf_features=default set.
func Default() Set {
	var s Set
	for _, f := range table() {
		if f.inDefault {
			*f.field(&s) = true
		}
	}
	return s
}

// Legacy returns what pahole -J uses when no --btf_features is given.
func Legacy() Set {
	return Set{Var: true, DeclTag: true, TypeTag: true, Enum64: true}
}

// Parse reads a btf_features list into a Set, starting from all-off.
// "default" (alone or as a token) adds the default features; a leading "+"
// means default plus the names that follow. Unknown names are returned in
// unknown; with strict they are an error instead.
func Parse(list string, strict bool) (s Set, unknown []string, err error) {
	list = strings.TrimSpace(list)
	if strings.HasPrefix(list, "+") {
		s = Default()
		list = list[1:]
	}
	byName := map[string]feature{}
	for _, f := range table() {
		byName[f.name] = f
	}
	for _, tok := range strings.Split(list, ",") {
		tok = strings.TrimSpace(tok)
		switch {
		case tok == "":
		case tok == "default":
			d := Default()
			s = Union(s, d)
		default:
			f, ok := byName[tok]
			if !ok {
				if strict {
					return Set{}, nil, fmt.Errorf("unknown BTF feature %q (known: %s)", tok, strings.Join(Names(), ", "))
				}
				unknown = append(unknown, tok)
				continue
			}
			*f.field(&s) = true
		}
	}
	return s, unknown, nil
}

// Union is the set of the features on in a or in b.
func Union(a, b Set) Set {
	for _, f := range table() {
		if *f.field(&b) {
			*f.field(&a) = true
		}
	}
	return a
}

// Names lists every supported feature name, sorted.
func Names() []string {
	var n []string
	for _, f := range table() {
		n = append(n, f.name)
	}
	sort.Strings(n)
	return n
}

// Describe lists every feature with whether it is in default and what it does.
func Describe() []struct {
	Name      string
	InDefault bool
	Help      string
} {
	var out []struct {
		Name      string
		InDefault bool
		Help      string
	}
	for _, f := range table() {
		out = append(out, struct {
			Name      string
			InDefault bool
			Help      string
		}{f.name, f.inDefault, f.help})
	}
	return out
}

// Enabled returns the names of the features that are on, in pahole's order.
func (s Set) Enabled() []string {
	var n []string
	for _, f := range table() {
		if *f.field(&s) {
			n = append(n, f.name)
		}
	}
	return n
}

// String is the comma-separated list of enabled features.
func (s Set) String() string { return strings.Join(s.Enabled(), ",") }

// Flag is one feature under pahole's name and whether it is on.
type Flag struct {
	Name string
	On   bool
}

// Flags lists every feature, on or off, in pahole's order.
func (s Set) Flags() []Flag {
	var out []Flag
	for _, f := range table() {
		out = append(out, Flag{f.name, *f.field(&s)})
	}
	return out
}

// ApplyOption applies one of pahole's single-feature options
// (--btf_gen_floats, --skip_encoding_btf_vars, ...) to s and reports
// whether opt is one. --btf_gen_all asks for the feature "all", which
// pahole no longer has: its only effect is to clear the set.
func ApplyOption(opt string, s *Set) bool {
	if opt == "--btf_gen_all" {
		*s = Set{}
		return true
	}
	for _, f := range table() {
		switch opt {
		case "":
		case f.on:
			*f.field(s) = true
			return true
		case f.off:
			*f.field(s) = false
			return true
		}
	}
	return false
}
