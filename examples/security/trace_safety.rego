# Trace safety: functions a BPF tracing program must not attach to, left
# out of BTF (mode "exclude", the default) or tagged with a decl tag (mode
# "annotate") so that tools can tell.
#
# A function is unsafe to trace when
#   - it is in code the kernel keeps free of instrumentation (.noinstr.text,
#     .entry.text by default): in a vmlinux, where the linker merges those
#     sections into .text between markers such as __noinstr_text_start and
#     __noinstr_text_end, by the text_regions fact ("noinstr", "entry");
#     in a module, which keeps its sections, by its section; optionally by
#     a symbol address inside one of the ranges the rules file gives;
#   - it is noreturn: an fexit or fmod_ret program on it never completes;
#   - its name matches the trace-safety deny list.
#
# Configuration, all optional, under data.btfgate.config.trace_safety:
#
#   mode: exclude | annotate               default exclude
#   tag: TEXT                              default "btfgate:no_trace"
#   regions: [NAME, ...]                   default ["noinstr", "entry"]
#   sections: [NAME, ...]                  default [".noinstr.text", ".entry.text"]
#   ranges: [{name: TEXT, start: ADDR, end: ADDR}, ...]   [start, end), default none
#   noreturn: BOOL                         default true
#   deny: [GLOB | {name: GLOB, reason: TEXT}, ...]
#
# Annotate mode needs the decl_tag feature: without it the encoder leaves
# every policy decl tag out of the BTF (with a warning), and the unsafe
# functions would go in untagged, so the outcome is refused instead.
package btfgate.functions

exclude.trace_safety := trace_unsafe if trace_config.mode == "exclude"

annotate.trace_safety := {id: {trace_config.tag} | some id, _ in trace_unsafe} if trace_config.mode == "annotate"

# A mode other than these two is a mistake in the rules file: refuse the
# outcome rather than guess.
deny.trace_safety_mode := {id: {sprintf("trace_safety.mode is %s, want \"exclude\" or \"annotate\"", [json.marshal(trace_config.mode)])} |
	some id, _ in trace_unsafe
} if not trace_config.mode in {"exclude", "annotate"}

# Untagged in annotate mode is unmarked: refuse it, for every unsafe
# function that goes in.
deny.trace_safety_untagged := {id: {"unsafe to trace, but annotate mode cannot tag it: the decl_tag feature is off (turn it on, or use mode exclude)"} |
	some id, _ in trace_unsafe
	not data.btfgate.decision.left_out[id]
} if {
	trace_config.mode == "annotate"
	not input.features.decl_tag
}

# The configuration with its defaults filled in.
trace_config := object.union(
	{
		"mode": "exclude",
		"tag": "btfgate:no_trace",
		"regions": ["noinstr", "entry"],
		"sections": [".noinstr.text", ".entry.text"],
		"ranges": [],
		"noreturn": true,
		"deny": [],
	},
	trace_user_config,
)

# Read through a default rule, not object.get(data, ...): a rule of this
# package that reads all of data depends on itself.
default trace_user_config := {}

trace_user_config := data.btfgate.config.trace_safety

# {id: {why, ...}} for every function unsafe to trace.
trace_unsafe := {id: {why | some part in trace_parts; some why in part[id]} |
	some part in trace_parts
	some id, _ in part
}

trace_parts := [trace_by_region, trace_by_section, trace_by_range, trace_noreturn, trace_denied]

# Each part is one comprehension over the batch, computed only when its
# configuration asks for it (an empty comprehension still reads every
# function).
default trace_by_region := {}

trace_by_region := {id: {sprintf("in %s code (__%s_text_start to __%s_text_end): not instrumentable", [r, r, r]) |
	some r in input.functions[id].text_regions
	trace_regions[r]
} |
	some r in input.functions[id].text_regions
	trace_regions[r]
} if count(trace_regions) > 0

trace_regions := {r | some r in trace_config.regions}

default trace_by_section := {}

trace_by_section := {id: {sprintf("in %s: not instrumentable", [s])} |
	s := input.functions[id].section
	trace_sections[s]
} if count(trace_sections) > 0

trace_sections := {s | some s in trace_config.sections}

default trace_by_range := {}

trace_by_range := {id: {sprintf("in %s (address range from the rules file): not instrumentable", [trace_config.ranges[i].name]) |
	some i, ids in trace_range_hits
	ids[id]
} |
	some ids in trace_range_hits
	some id in ids
} if count(trace_config.ranges) > 0

# {range index: {id, ...}}: the functions with a symbol in [start, end).
# Addresses above 2^63 compare slowly, so every symbol is compared with the
# span of all ranges first, and only the few inside with each range.
trace_range_hits := {i: {id |
	some [id, v] in trace_range_candidates
	v >= r.start
	v < r.end
} |
	some i, r in trace_config.ranges
}

trace_range_candidates := {[id, sym.value] |
	some sym in input.functions[id].symbols
	sym.value >= trace_range_span.start
	sym.value < trace_range_span.end
}

trace_range_span := {
	"start": min({r.start | some r in trace_config.ranges}),
	"end": max({r.end | some r in trace_config.ranges}),
}

default trace_noreturn := {}

trace_noreturn := {id: {"noreturn: fexit and fmod_ret programs would never complete"} |
	input.functions[id].noreturn
} if trace_config.noreturn

default trace_denied := {}

trace_denied := {id: {trace_deny_message(e) | some e in trace_config.deny; glob.match(trace_deny_glob(e), null, input.functions[id].name)} |
	some id in trace_denied_ids
} if count(trace_config.deny) > 0

trace_denied_ids := {id |
	some e in trace_config.deny
	glob.match(trace_deny_glob(e), null, input.functions[id].name)
}

trace_deny_glob(e) := e if is_string(e)

trace_deny_glob(e) := e.name if is_object(e)

trace_deny_message(e) := e.reason if {
	is_object(e)
	is_string(e.reason)
} else := sprintf("on the trace-safety deny list (%s)", [trace_deny_glob(e)])
