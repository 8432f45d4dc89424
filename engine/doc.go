// Package engine owns policy evaluation: it compiles Rego policies (the
// default set of package policies plus the user's modules) once, in a
// sandbox, and turns facts about functions into decisions about which go
// into BTF, and why.
//
// # Input
//
// Policies see one batch of functions at a time:
//
//	input.features   {"consistent_func": true, "true_signature": false, ...}
//	                 every feature by pahole's name
//	input.functions  {ID: FUNCTION, ...} keyed by facts.Function.ID
//
// FUNCTION carries the fields of facts.Function under their JSON names
// (id, name, ambiguous_addr, unexpected_reg, uncertain_loc, reordered,
// inconsistent, mismatch, kfunc, kfunc_flags, btf_id_ref, instances,
// section, noreturn, external, symbols), with canonical and true_sig
// (null when absent) as nested objects under facts.Instance's JSON names,
// params included. A batch is part of one encode, not all of it, so a rule
// must decide a function from its own facts alone: that is what makes the
// decisions independent of the number of workers.
//
// # Rules and decisions
//
// Rule modules belong to package btfgate.functions and add entries to
// four documents keyed by rule name, then function id:
//
//	skip.RULE[id] contains MESSAGE     leave out; keep rules override it
//	exclude.RULE[id] contains MESSAGE  leave out, whatever keep rules say
//	keep.RULE[id] contains MESSAGE     put in, overriding every skip
//	annotate.RULE[id] contains TAG     decl tag on a function that goes in:
//	                                   "text" (component -1) or
//	                                   {"value": "text", "component": N}
//
// pahole's six reasons are the skip rules ambiguous_address,
// optimized_parameters, reordered_parameters, uncertain_location,
// inconsistent_prototype and unexpected_register. A function that both a
// keep and an exclude rule name is an error. Iterate with
// "some id, f in input.functions": each document is computed once per
// batch, so a rule costs one pass over the batch.
//
// # Data
//
// Config.Data is mounted at data.btfgate.config. The default set reads
// three lists from it (see policies/config_lists.rego):
//
//	deny: ["glob", {"name": "glob", "reason": "text"}, ...]
//	keep: [same shape]
//	tags: [{"name": "glob", "tag": "text"}, ...]
//
// User modules may read any other keys.
//
// # Sandbox
//
// Policies must be deterministic and offline: builtins that reach the
// network, the clock, randomness or the runtime (http.send, net.*,
// time.now_ns, rand.*, uuid.*, opa.runtime, trace, ...) do not exist for
// them, and a module that calls one fails to compile.
package engine
