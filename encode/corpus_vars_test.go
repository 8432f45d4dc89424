package encode

import (
	"testing"
)

// checkVariableDecisions: the variable policies' decision on every
// variable of a run follows the Go statement of pahole's rules
// (facts.Variable.PaholeSkip, filterVars), reason included, through the
// engine's batches and chunks, and the variables that go in are as many
// as the VARs the reference holds (want).
func checkVariableDecisions(t *testing.T, run *corpusRun, want int) {
	t.Helper()
	res := run.res
	if len(res.VarDecisions) != len(res.Variables) {
		t.Fatalf("%d variable decisions for %d variables", len(res.VarDecisions), len(res.Variables))
	}
	in, disagree := 0, 0
	reasons := map[string]int{}
	for i, v := range res.Variables {
		d := res.VarDecisions[i]
		if d.ID != v.ID || v.ID != i {
			t.Fatalf("variable %d: id %d, decision id %d", i, v.ID, d.ID)
		}
		if d.Include {
			in++
		}
		rule := ""
		if len(d.Reasons) > 0 && d.Final != "" {
			rule = d.Reasons[0].Rule
		}
		reasons[rule]++
		if d.Include != (v.PaholeSkip == "") || rule != v.PaholeSkip || (rule == "") != (d.Final == "") {
			if disagree++; disagree <= 10 {
				t.Errorf("variable %s (CU %d, DIE %#x, section %q): policies include=%v final %q; pahole's rules say %q",
					v.Name, v.CU, v.DIE, v.Section, d.Include, d.Final, v.PaholeSkip)
			}
		}
	}
	if disagree > 0 {
		t.Errorf("%d of %d variables decided otherwise than pahole's rules", disagree, len(res.Variables))
	}
	if in != want {
		t.Errorf("%d variables go in, want %d", in, want)
	}
	t.Logf("%d variables with a static address, %d go in; reasons %v", len(res.Variables), in, reasons)
}

// TestCorpusVariableDecisionsMatchPaholeRules: default features (381
// percpu VARs) and global_var (23,709).
func TestCorpusVariableDecisionsMatchPaholeRules(t *testing.T) {
	t.Run("default", func(t *testing.T) { checkVariableDecisions(t, encodeCorpusDefault(t), 381) })
	t.Run("global_var", func(t *testing.T) { checkVariableDecisions(t, encodeCorpusAll(t), 23709) })
}
