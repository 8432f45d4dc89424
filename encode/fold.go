package encode

// foldFrom is the size of .debug_info from which the encode folds its
// spliced types (btf.Deduplication.Fold): below it (all modules, which are
// split BTF and fold nothing, and small kernels) the memory given back is
// small, and waiting for the dedup's goroutine at the end of the decode
// would cost more than it gives.
const foldFrom = 64 << 20

// folds reports whether an encode of an input with info bytes of
// .debug_info folds its types.
func (o *Options) folds(info int) bool { return o.Base == nil && (info >= foldFrom || o.foldAlways) }

// Folding, in two steps (docs/performance.md, "Session 15: folding the
// spliced types"):
//
//   - When the decode ends, the dedup's goroutine folds what the primitive
//     and struct passes decided, then starts the reference passes; the
//     decode waits for the fold (foldAfterDecode). The structs are most of
//     a kernel's type words, the largest part of its live memory after the
//     decode, and the facts and policy phases that come next are where its
//     garbage peaks.
//   - Before the function types are appended, with the reference passes
//     done, the encode folds the rest (foldRest).
//
// From the first step on, a folded type reads as its canonical type: the
// facts phase compares and prints prototypes through types of the same
// names and shapes, and decides the same.

// folding is what a fold did: how many types it folded (-1: it did not
// fold) and how many bytes it gave back.
type folding struct{ types, released int }

// add records f in res.
func (f folding) add(res *Result) {
	if f.types >= 0 {
		res.FoldedTypes += f.types
		res.Folded += f.released
	}
}

// foldAfterDecode waits for the dedup's goroutine to fold the types after
// the last unit, and records what it did.
func (e *encoder) foldAfterDecode() {
	if e.pipe != nil && e.pipe.fold {
		f, _ := e.pipe.advanced.wait()
		f.add(e.res)
	}
}

// foldRest waits for the dedup's reference passes and folds the types they
// decided. An error of the passes is left to dedup.
func (e *encoder) foldRest() {
	if e.pipe == nil || !e.pipe.fold {
		return
	}
	if r, err := e.pipe.wait(); err == nil && r.dd != nil {
		var f folding
		f.types, f.released = r.dd.Fold()
		f.add(e.res)
	}
}
