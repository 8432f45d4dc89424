package encode

import (
	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/dwarf"
)

// MergedHeap is about the peak Go heap of a merged walk (Options.Opened)
// per byte of .debug_info (measured in docs/performance.md).
const MergedHeap = 13

// unitJob is what one worker walks and converts into one fragment: a
// compile unit, or all of them merged (loader.Input.Merge).
type unitJob struct {
	unit   *dwarf.Unit  // the unit; for a merge, the first
	merged []dwarf.Unit // all units, walked as one; nil for one unit
	end    uint64       // the end of the job's part of .debug_info
}

// unitJobs returns in's jobs in .debug_info order.
func unitJobs(in *loader.Input) []unitJob {
	units := in.Units
	if in.Merge && len(units) > 0 {
		return []unitJob{{unit: &units[0], merged: units, end: units[len(units)-1].End}}
	}
	jobs := make([]unitJob, len(units))
	for i := range units {
		jobs[i] = unitJob{unit: &units[i], end: units[i].End}
	}
	return jobs
}

// walk walks the job into tab. A merge leaves out the units whose
// language is excluded (pahole's early CU filter, per unit).
func (j *unitJob) walk(w *loader.Walker, tab *loader.TypeTable, excluded map[uint64]bool) error {
	if j.merged == nil {
		return w.Walk(j.unit, tab)
	}
	var skip func(*dwarf.Unit) bool
	if len(excluded) > 0 {
		skip = func(u *dwarf.Unit) bool { return excluded[u.Language] }
	}
	return w.WalkMerged(j.merged, tab, skip)
}
