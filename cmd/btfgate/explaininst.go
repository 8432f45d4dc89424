package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/btfgate/btfgate/facts"
)

// writeInstances lists a group's DWARF instances for explain: the
// canonical one (whose prototype goes into BTF), every instance whose own
// facts trip a rule (optimized_skip, unexpected_reg, uncertain_loc,
// reordered) with the parameters at fault, then at most maxInst of all
// (0: all).
func writeInstances(w io.Writer, f *facts.Function, insts []facts.Instance, maxInst int) {
	canon := -1
	for k, in := range insts {
		if in.CU == f.Canonical.CU && in.DIE == f.Canonical.DIE {
			canon = k
			break
		}
	}
	if canon >= 0 {
		fmt.Fprintf(w, "  canonical instance: #%d %s\n", canon, instanceWhere(insts[canon]))
	}
	var tripped []string
	for k, in := range insts {
		faults := instanceFaults(in)
		if len(faults) == 0 {
			continue
		}
		mark := ""
		if k == canon {
			mark = " (canonical)"
		}
		tripped = append(tripped, fmt.Sprintf("    #%d%s %s\n      %s\n", k, mark, instanceWhere(in), strings.Join(faults, "\n      ")))
	}
	if len(tripped) > 0 {
		fmt.Fprintf(w, "  instances whose facts trip a rule (%d):\n%s", len(tripped), strings.Join(tripped, ""))
	}
	var inst []string
	for k, in := range insts {
		if maxInst > 0 && k == maxInst {
			inst = append(inst, fmt.Sprintf("    ... %d more (--instances 0 lists all)\n", len(insts)-k))
			break
		}
		mark := " "
		if k == canon {
			mark = "*"
		}
		inst = append(inst, fmt.Sprintf("   %s#%d CU %d DIE %#x addr %#x match=%v inline=%v optimized_parms=%v unexpected_reg=%v reordered=%v optimized_symbol=%v\n"+
			"        clang=%v signature_changed=%v abi_walk=%s\n%s",
			mark, k, in.CU, in.DIE, in.Addr, in.AddrMatchesSymbol, in.Inline, in.OptimizedParms, in.UnexpectedReg, in.Reordered, in.OptimizedSymbol,
			in.Clang, in.SignatureChanged, in.ABIWalk, paramLines(in)))
	}
	fmt.Fprintf(w, "  instances (%d, * = canonical):\n%s\n", f.Instances, strings.Join(inst, ""))
}

// instanceWhere names an instance for people: unit, DIE, address and
// what kind of subprogram it is.
func instanceWhere(in facts.Instance) string {
	kind := "out-of-line copy"
	switch {
	case in.Inline:
		kind = "abstract root of inlined copies"
	case in.TrueSym != "":
		kind = "clone " + in.TrueSym
	case in.OptimizedSymbol:
		kind = "clone (.isra/.constprop symbol at its address)"
	case in.Addr == 0:
		kind = "no address of its own"
	}
	return fmt.Sprintf("CU %d DIE %#x addr %#x: %s", in.CU, in.DIE, in.Addr, kind)
}

// instanceFaults says which of an instance's facts are set that rules
// read, each with the parameters that set it.
func instanceFaults(in facts.Instance) []string {
	var out []string
	if in.OptimizedSkip {
		why := "a .isra/.constprop symbol at its address"
		if in.SignatureChanged {
			why = "clang changed its signature (DW_CC_nocall)"
		}
		out = append(out, fmt.Sprintf("optimized_skip: %s and %s", paramsWhere(in, func(p facts.Param) bool { return p.Optimized },
			func(p facts.Param) string { return "has no location (optimized out)" }), why))
	}
	if in.Reordered {
		out = append(out, "reordered: "+paramsWhere(in, func(p facts.Param) bool { return p.OriginIdx >= 0 && p.OriginIdx != p.Idx },
			func(p facts.Param) string {
				return fmt.Sprintf("is at position %d, its abstract origin's position %d", p.Idx, p.OriginIdx)
			}))
	}
	if in.UnexpectedReg {
		out = append(out, "unexpected_reg: "+paramsWhere(in, func(p facts.Param) bool { return p.UnexpectedReg },
			func(p facts.Param) string {
				return fmt.Sprintf("is in DWARF register %d, the ABI puts slot %d in register %d", p.LocReg, p.ABISlot, p.ExpectedReg)
			}))
	}
	if in.UncertainLoc {
		out = append(out, "uncertain_loc: "+paramsWhere(in, func(p facts.Param) bool { return p.IsStruct && p.ABISlot < 0 },
			func(p facts.Param) string { return "is a struct passed on the stack" }))
	}
	return out
}

// paramsWhere describes the parameters of in that pick selects, or says
// the instance as a whole when none does (a parameter dropped or added).
func paramsWhere(in facts.Instance, pick func(facts.Param) bool, say func(facts.Param) string) string {
	var parts []string
	for _, p := range in.Params {
		if pick(p) {
			parts = append(parts, fmt.Sprintf("param %d %s %s", p.Idx, strings.TrimSpace(p.Type), p.Name)+" "+say(p))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("the instance as a whole (%d parameters, none alone at fault)", len(in.Params))
	}
	return strings.Join(parts, "; ")
}

// paramLines lists an instance's parameters with their location facts.
func paramLines(in facts.Instance) string {
	var b strings.Builder
	for _, p := range in.Params {
		origin := ""
		if p.OriginIdx >= 0 {
			origin = fmt.Sprintf(" origin_idx=%d", p.OriginIdx)
		}
		slot := " slot=none"
		if p.ABISlot >= 0 {
			slot = fmt.Sprintf(" slot=%d", p.ABISlot)
			if p.ABISlots > 1 {
				slot += fmt.Sprintf("-%d", p.ABISlot+p.ABISlots-1)
			}
			slot += fmt.Sprintf(" expected_reg=%d", p.ExpectedReg)
		}
		if p.TrueSigMember != "" {
			slot += fmt.Sprintf(" member=%s passed_as_member=%v", p.TrueSigMember, p.PassedAsMember)
		}
		fmt.Fprintf(&b, "        param %d %s %s: has_loc=%v loc_reg=%d const=%v stack=%v size=%d in_memory=%v struct=%v optimized=%v unexpected_reg=%v%s%s\n",
			p.Idx, p.Type, p.Name, p.HasLoc, p.LocReg, p.LocConst || p.HasConstValue, p.LocStack, p.TypeSize, p.InMemory,
			p.IsStruct, p.Optimized, p.UnexpectedReg, slot, origin)
	}
	return b.String()
}
