package btfgate.examples.security_test

import data.btfgate.decision
import data.btfgate.functions

# A batch of functions: {id: facts}, each with a name and a .text symbol
# unless facts say otherwise.
batch(by_id) := {
	"features": {"consistent_func": true, "true_signature": false, "decl_tag": true},
	"functions": {id: object.union(
		{
			"id": id, "name": sprintf("f%d", [id]), "section": ".text", "noreturn": false, "text_regions": [],
			"symbols": [{"name": sprintf("f%d", [id]), "value": 4096 * id, "section": ".text"}],
		},
		facts,
	) |
		some id, facts in by_id
	},
}

noinstr := {"section": ".noinstr.text"}

test_defaults_exclude_sections_and_noreturn if {
	given := batch({1: noinstr, 2: {"section": ".entry.text"}, 3: {"noreturn": true}, 4: {}, 5: {"section": ".init.text"}})
	functions.exclude.trace_safety == {
		1: {"in .noinstr.text: not instrumentable"},
		2: {"in .entry.text: not instrumentable"},
		3: {"noreturn: fexit and fmod_ret programs would never complete"},
	} with input as given
	decision.left_out == {1, 2, 3} with input as given
}

# In a vmlinux the sections are merged into .text: the text_regions fact
# says which marked region a function lies in.
test_defaults_exclude_noinstr_and_entry_regions if {
	given := batch({
		1: {"text_regions": ["noinstr"]},
		2: {"text_regions": ["entry", "irqentry"]},
		3: {"text_regions": ["cpuidle"]},
		4: {},
	})
	functions.exclude.trace_safety == {
		1: {"in noinstr code (__noinstr_text_start to __noinstr_text_end): not instrumentable"},
		2: {"in entry code (__entry_text_start to __entry_text_end): not instrumentable"},
	} with input as given
}

test_regions_are_configurable if {
	given := batch({1: {"text_regions": ["noinstr"]}, 2: {"text_regions": ["cpuidle"]}, 3: {"text_regions": ["entry", "irqentry"]}})
	functions.exclude.trace_safety == {
		2: {"in cpuidle code (__cpuidle_text_start to __cpuidle_text_end): not instrumentable"},
		3: {"in irqentry code (__irqentry_text_start to __irqentry_text_end): not instrumentable"},
	} with input as given
		with data.btfgate.config.trace_safety as {"regions": ["cpuidle", "irqentry"]}
	count(decision.left_out) == 0 with input as given
		with data.btfgate.config.trace_safety as {"regions": []}
}

test_sections_and_noreturn_are_configurable if {
	given := batch({1: noinstr, 2: {"section": ".cpuidle.text"}, 3: {"noreturn": true}})
	decision.left_out == {2} with input as given
		with data.btfgate.config.trace_safety as {"sections": [".cpuidle.text"], "noreturn": false}
}

# A function whose one symbol is at addr.
at(addr) := {"symbols": [{"name": "x", "value": addr, "section": ".text"}]}

# Kernel addresses are above 2^63: the comparison must be exact there.
test_ranges_match_symbol_addresses if {
	start := 18446744071589584000
	given := batch({1: at(start - 1), 2: at(start), 3: at(start + 99), 4: at(start + 100)})
	cfg := {"ranges": [{"name": ".noinstr.text", "start": start, "end": start + 100}]}
	functions.exclude.trace_safety == {
		2: {"in .noinstr.text (address range from the rules file): not instrumentable"},
		3: {"in .noinstr.text (address range from the rules file): not instrumentable"},
	} with input as given
		with data.btfgate.config.trace_safety as cfg
}

test_several_ranges_and_the_gap_between if {
	given := batch({1: at(150), 2: at(250), 3: at(350), 4: at(50)})
	cfg := {"ranges": [{"name": "a", "start": 100, "end": 200}, {"name": "b", "start": 300, "end": 400}]}
	functions.exclude.trace_safety == {
		1: {"in a (address range from the rules file): not instrumentable"},
		3: {"in b (address range from the rules file): not instrumentable"},
	} with input as given
		with data.btfgate.config.trace_safety as cfg
}

test_ranges_may_share_a_name if {
	cfg := {"ranges": [{"name": "a", "start": 100, "end": 200}, {"name": "a", "start": 300, "end": 400}]}
	decision.left_out == {1, 3} with input as batch({1: at(150), 2: at(250), 3: at(350)})
		with data.btfgate.config.trace_safety as cfg
}

test_a_later_symbol_in_range_counts if {
	given := batch({1: {"symbols": [
		{"name": "f1", "value": 10, "section": ".text"},
		{"name": "f1", "value": 150, "section": ".text"},
	]}})
	decision.left_out == {1} with input as given
		with data.btfgate.config.trace_safety as {"ranges": [{"name": "r", "start": 100, "end": 200}]}
}

test_deny_list_globs_and_reasons if {
	given := batch({1: {"name": "__bpf_prog_enter"}, 2: {"name": "__bpf_prog_exit_recur"}, 3: {"name": "bpf_prog_run"}})
	cfg := {"deny": ["__bpf_prog_enter*", {"name": "__bpf_prog_exit*", "reason": "recurses"}]}
	functions.exclude.trace_safety == {
		1: {"on the trace-safety deny list (__bpf_prog_enter*)"},
		2: {"recurses"},
	} with input as given
		with data.btfgate.config.trace_safety as cfg
}

test_every_reason_is_listed if {
	given := batch({1: {"name": "f1", "section": ".noinstr.text", "noreturn": true}})
	functions.exclude.trace_safety[1] == {
		"in .noinstr.text: not instrumentable",
		"noreturn: fexit and fmod_ret programs would never complete",
		"on the trace-safety deny list (f*)",
	} with input as given
		with data.btfgate.config.trace_safety as {"deny": ["f*"]}
}

test_annotate_mode_tags_instead_of_excluding if {
	given := batch({1: noinstr, 2: {}})
	cfg := {"mode": "annotate"}
	functions.annotate.trace_safety == {1: {"btfgate:no_trace"}} with input as given
		with data.btfgate.config.trace_safety as cfg
	not functions.exclude.trace_safety with input as given
		with data.btfgate.config.trace_safety as cfg
	count(decision.left_out) == 0 with input as given
		with data.btfgate.config.trace_safety as cfg
}

# Without decl_tag the encoder drops policy decl tags: annotate mode
# refuses to let unsafe functions in untagged.
test_annotate_mode_needs_decl_tag if {
	given := object.union(batch({1: noinstr, 2: {}, 3: {"noreturn": true, "reordered": true}}), {"features": {"decl_tag": false}})
	r := decision.result with input as given
		with data.btfgate.config.trace_safety as {"mode": "annotate"}

	# 3 stays out anyway (reordered): nothing to tag.
	r.deny.trace_safety_untagged == {1: {"unsafe to trace, but annotate mode cannot tag it: the decl_tag feature is off (turn it on, or use mode exclude)"}}
	r2 := decision.result with input as given
	not r2.deny.trace_safety_untagged
	r2.left_out == {1, 3}
}

test_annotate_mode_custom_tag if {
	functions.annotate.trace_safety == {1: {"notrace"}} with input as batch({1: noinstr})
		with data.btfgate.config.trace_safety as {"mode": "annotate", "tag": "notrace"}
}

test_unknown_mode_is_refused if {
	given := batch({1: noinstr, 2: {}})
	r := decision.result with input as given
		with data.btfgate.config.trace_safety as {"mode": "exclud"}
	r.deny.trace_safety_mode == {1: {"trace_safety.mode is \"exclud\", want \"exclude\" or \"annotate\""}}
	count(r.left_out) == 0
}
