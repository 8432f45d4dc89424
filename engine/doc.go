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
//	                 every feature, under pahole's name
//	input.functions  {ID: FUNCTION, ...} keyed by facts.Function.ID
//
// FUNCTION holds facts.Function's fields under their JSON names (name,
// ambiguous_addr, unexpected_reg, uncertain_loc, reordered, inconsistent,
// mismatch, kfunc, symbols, text_regions, ...), with canonical and
// true_sig (null when absent) as nested objects of facts.Instance's
// fields, params included.
// Only the fields that some loaded module mentions by name are built,
// unless a module reads facts through a computed key: then all are (see
// factrefs.go, which also refuses keys that name no fact).
//
// A batch is part of one encode, not all of it, so a rule must decide a
// function from that function's facts alone: that is what keeps decisions
// independent of the number of workers.
//
// # Rules
//
// Rule modules belong to package btfgate.functions and add to six
// documents, keyed by rule name, then function id, each entry a set:
//
//	skip.RULE[id]      messages: leave the function out; keep overrides
//	exclude.RULE[id]   messages: leave it out, whatever keep rules say
//	keep.RULE[id]      messages: put it in, overriding every skip rule
//	annotate.RULE[id]  decl tags for it if it goes in: "text"
//	                   (component -1) or {"value": "text", "component": N}
//	deny.RULE[id]      messages: this outcome is not allowed
//	true_signature.RULE[id]
//	                   messages: give the function its true signature (its
//	                   clone, foo.isra.0, under its own name), as the
//	                   true_signature feature would
//
// true_signature is asked first, on its own (SelectTrueSignature, query
// data.btfgate.decision.true_signature_result): the encoder recomputes
// the selected groups' facts, then asks for the decisions. A Session runs
// both queries building each function's input once.
//
// pahole's six reasons are the skip rules ambiguous_address,
// optimized_parameters, reordered_parameters, uncertain_location,
// inconsistent_prototype and unexpected_register. A function that both a
// keep and an exclude rule name is an error, as is a rule entry not keyed
// by a function id of the batch or not a set. policies/decision.rego
// decides (query data.btfgate.decision.verdicts); the engine lists each
// function's reasons. The engine checks the documents' shapes itself and
// asks for data.btfgate.decision.problems only when one is wrong.
//
// The first four documents decide; deny judges their outcome. If any deny
// entry exists once every batch is decided, DecideFunctions fails with a
// *ViolationsError naming each function, rule, module and message. Deny
// rules may read the outcome, data.btfgate.decision.left_out (and
// excluded_by, skipped_by, kept_by: {id: {RULE, ...}}), without a cycle,
// because the outcome does not depend on deny; a rule of the other four
// kinds that reads it, or a deny rule that reads
// data.btfgate.decision.result (or verdicts), is a cycle and fails to
// compile.
//
// For speed, write a rule as one comprehension over the batch, reading
// facts through one ref:
//
//	skip.no_kfuncs := {id: {"kfunc"} | input.functions[id].kfunc}
//
// "some id, f in input.functions" is about twice as slow as
// input.functions[id].kfunc, and a partial rule
// (skip.no_kfuncs[id] contains "kfunc" if ...) costs the square of the
// number of functions it names (OPA checks each new key against the
// others): fine for tens, slow for thousands.
//
// # Variables
//
// DecideVariables decides facts.Variable batches the same way, with the
// rules of package btfgate.variables (the same five documents but
// true_signature, keyed by variable id, over input.variables) and
// policies/variables/decision.rego (query
// data.btfgate.variable_decision.verdicts). pahole's variable filter is
// one document there, pahole_reason = {id: RULE}; Decision.Final is its
// message. Those two modules are loaded even with Config.NoDefault: the
// encoder builds VARs only for what they let in.
//
// # Data
//
// Config.Data is mounted at data.btfgate.config. The default set reads
// four lists from it (policies/config_lists.rego), and New checks their
// shape:
//
//	deny: ["glob", {"name": "glob", "reason": "text"}, ...]
//	keep: [same shape]
//	tags: [{"name": "glob", "tag": "text"}, ...]
//	true_signature: [same shape as deny]
//
// User modules may read any other key.
//
// # Sandbox
//
// Policies must be deterministic and offline: builtins that reach the
// network, the clock, randomness or the runtime (http.send, net.*,
// time.now_ns, rand.*, uuid.*, opa.runtime, trace, ...) do not exist for
// them, and a module that calls one fails to compile.
package engine
