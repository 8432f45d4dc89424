// Package facts defines the facts btfgate gathers about functions and
// variables and hands to policies, and how they are represented: the
// contract between the code that computes them and the Rego policies that
// decide.
//
// The loader (package loader) reads per-DIE facts from ELF and DWARF:
// symbols, parameter locations, the ABI walk's verdicts. Package
// functions groups the DIEs by ELF base name as pahole does and assembles
// one Function per group from them.
//
// # One source
//
// The Go structs are the single source of the contract. Fields lists a
// struct's facts under their JSON names; the engine's input builder, the
// NDJSON of `btfgate facts`, `btfgate facts --opa-input`, the facts of
// `--report` lines and the field tables of docs/policies.md all follow it
// (the engine builds, AppendJSON writes, tests check the docs). Adding a
// fact is adding a field with its json tag and comment, its row in
// docs/policies.md, and the code that computes it.
//
// Every field is always present, in the input and in every export: false,
// 0, "" (a string with nothing to say), [] (an empty list) or null (a
// Nullable object that does not apply, such as Function.TrueSig). No JSON
// tag carries omitempty, and Fields refuses one that does.
//
// Another subject type (a variable, say) follows the same rules: a struct
// whose fields have plain json tags and the kinds of Kind; Subjects and
// Fields describe it, AppendJSON writes it, and the engine's builder makes
// its input objects from the same description.
//
// The meaning of each fact follows pahole (../shared/docs/pahole-behaviour.md
// §2 and §8).
package facts
