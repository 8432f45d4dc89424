// Package functions owns pahole's semantics of functions (spec §2.3-§2.7):
// which DWARF instances of a unit are saved (Save) and how they point
// into the output's types (Globalize); their grouping by ELF base name,
// the running flags and the prototype comparison that finds inconsistent
// prototypes, the canonical and true-signature instances (Group); the
// facts policies decide on (Groups.Facts, []facts.Function); and the
// FUNC_PROTOs, FUNCs and decl tags of the groups that go in (Groups.Emit).
// The loader supplies each instance's DWARF and ELF facts; the encode
// runs the phases and the policies decide.
package functions
