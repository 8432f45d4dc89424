package btfgate.functions_test

import data.btfgate.decision
import data.btfgate.functions

names := batch({1: {"name": "bpf_foo"}, 2: {"name": "bpf_bar", "reordered": true}, 3: {"name": "other"}})

test_config_deny_excludes_by_glob if {
	ex := functions.exclude.config_deny with input as names
		with data.btfgate.config.deny as ["bpf_*"]
	ex == {1: {"denied by configuration (bpf_*)"}, 2: {"denied by configuration (bpf_*)"}}
}

test_config_deny_uses_the_given_reason if {
	ex := functions.exclude.config_deny with input as names
		with data.btfgate.config.deny as [{"name": "oth?r", "reason": "not for BPF"}]
	ex == {3: {"not for BPF"}}
}

test_config_keep_overrides_pahole if {
	functions.keep.config_keep == {2: {"kept by configuration (bpf_b*)"}} with input as names
		with data.btfgate.config.keep as ["bpf_b*"]
	count(decision.left_out) == 0 with input as names
		with data.btfgate.config.keep as ["bpf_b*"]
}

test_config_deny_and_keep_conflict if {
	decision.conflicts == {1} with input as names
		with data.btfgate.config.keep as ["bpf_f*"]
		with data.btfgate.config.deny as ["bpf_foo"]
}

test_config_tags_annotate if {
	functions.annotate.config_tags == {3: {"my_tag"}, 1: {"b"}} with input as names
		with data.btfgate.config.tags as [{"name": "o*", "tag": "my_tag"}, {"name": "*foo", "tag": "b"}]
}

test_config_several_entries_match if {
	functions.exclude.config_deny == {1: {"denied by configuration (*foo)", "denied by configuration (bpf_*)"}, 2: {"denied by configuration (bpf_*)"}} with input as names
		with data.btfgate.config.deny as ["bpf_*", "*foo"]
}

test_config_true_signature_selects_by_glob if {
	functions.true_signature.config_true_signature == {
		1: {"true signature by configuration (bpf_f*)"},
		3: {"we trace its clone"},
	} with input as names
		with data.btfgate.config.true_signature as ["bpf_f*", {"name": "other", "reason": "we trace its clone"}]
	r := decision.true_signature_result with input as names
		with data.btfgate.config.true_signature as ["bpf_f*"]
	r.true_signature.config_true_signature == {1: {"true signature by configuration (bpf_f*)"}}
	r.problems == set()
}

test_config_absent_adds_nothing if {
	not functions.exclude.config_deny with input as names
	not functions.keep.config_keep with input as names
	not functions.annotate.config_tags with input as names
	not functions.true_signature.config_true_signature with input as names
	not functions.exclude.config_deny with input as names with data.btfgate.config.deny as []
}

test_config_names_and_globs_merge if {
	# a name given twice keeps both reasons; a name and a glob that match
	# the same function both give theirs; a name that is no function adds
	# nothing
	ex := functions.exclude.config_deny with input as names
		with data.btfgate.config.deny as [
			{"name": "bpf_foo", "reason": "one"},
			{"name": "bpf_foo", "reason": "two"},
			{"name": "bpf_*", "reason": "glob"},
			"missing",
		]
	ex == {1: {"one", "two", "glob"}, 2: {"glob"}}
}

test_config_escaped_glob_is_a_glob if {
	functions.exclude.config_deny == {} with input as names
		with data.btfgate.config.deny as ["bpf\\_foo*x"]
	functions.exclude.config_deny == {1: {"denied by configuration (bpf_f[o]o)"}} with input as names
		with data.btfgate.config.deny as ["bpf_f[o]o"]
}
