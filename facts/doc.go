// Package facts defines the facts btfgate gathers about functions and
// variables and hands to policies: the contract between the loader,
// which fills them from ELF and DWARF, and the Rego policies, which decide.
//
// Every field says what it means and where it comes from. The JSON names
// are stable: policies and `btfgate facts` output use them. The meaning of
// each fact follows pahole (../shared/docs/pahole-behaviour.md §2 and §8).
package facts
