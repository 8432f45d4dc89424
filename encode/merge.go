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
	unit   *dwarf.Unit        // the unit; for a merge, the first
	merged []dwarf.Unit       // all units, walked as one; nil for one unit
	group  []int              // the unit and the partial units it imports (loader.Input.Groups)
	units  []dwarf.Unit       // what group indexes
	refs   [][]loader.PartRef // loader.Input.PartRefs
	end    uint64             // the end of the job's part of .debug_info
}

// lastUnit is the job's last unit in .debug_info order.
func (j *unitJob) lastUnit() *dwarf.Unit {
	if len(j.merged) > 0 {
		return &j.merged[len(j.merged)-1]
	}
	return j.unit
}

// unitJobs returns in's jobs in .debug_info order.
func unitJobs(in *loader.Input) []unitJob {
	units := in.Units
	if in.Merge && len(units) > 0 {
		return []unitJob{{unit: &units[0], merged: units, end: units[len(units)-1].End}}
	}
	if in.Groups != nil {
		return groupJobs(units, in.Groups, in.PartRefs)
	}
	jobs := make([]unitJob, len(units))
	for i := range units {
		jobs[i] = unitJob{unit: &units[i], end: units[i].End}
	}
	return jobs
}

// groupJobs returns a job for each group: its compile unit, walked with
// the partial units it needs. A job's end is where no later job reads:
// later jobs read partial units again.
func groupJobs(units []dwarf.Unit, groups [][]int, refs [][]loader.PartRef) []unitJob {
	jobs := make([]unitJob, len(groups))
	low := uint64(1<<64 - 1)
	for gi := len(groups) - 1; gi >= 0; gi-- {
		g := groups[gi]
		cu := &units[g[len(g)-1]]
		for _, k := range g {
			low = min(low, units[k].Offset)
		}
		jobs[gi] = unitJob{unit: cu, group: g, units: units, refs: refs, end: min(cu.End, low)}
	}
	return jobs
}

// walk walks the job into tab. A merge leaves out the units whose
// language is excluded (pahole's early CU filter, per unit).
func (j *unitJob) walk(w *loader.Walker, tab *loader.TypeTable, excluded map[uint64]bool) error {
	if j.group != nil {
		return w.WalkImporting(j.units, j.group, j.refs, tab)
	}
	if j.merged == nil {
		return w.Walk(j.unit, tab)
	}
	var skip func(*dwarf.Unit) bool
	if len(excluded) > 0 {
		skip = func(u *dwarf.Unit) bool { return excluded[u.Language] }
	}
	return w.WalkMerged(j.merged, tab, skip)
}
