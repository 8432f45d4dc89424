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

// When the decode ends, the dedup's goroutine folds what the primitive and
// struct passes decided (the structs: most of a kernel's type words, the
// largest part of its live memory after the decode), then starts the
// reference passes; the decode waits for the fold (foldAfterDecode). The
// facts and policy phases that come next are where the garbage peaks
// (docs/performance.md, "Session 15: folding the spliced types"). From then
// on a folded type reads as its canonical type: the facts phase compares
// and prints prototypes through types of the same names and shapes, and
// decides the same. Folding the reference types too, once their passes
// were done, gave back 25 MB more on the corpus kernel, but after the
// peak, for 20 ms of the functions phase: Fold folds the struct pass's
// kinds only.

// folding is what a fold did: how many types it folded (-1: it did not
// fold) and how many bytes it gave back.
type folding struct{ types, released int }

// record sets what f did in res.
func (f folding) record(res *Result) {
	if f.types >= 0 {
		res.FoldedTypes, res.Folded = f.types, f.released
	}
}

// foldAfterDecode waits for the dedup's goroutine to fold the types after
// the last unit, and records what it did.
func (e *encoder) foldAfterDecode() {
	if e.pipe != nil && e.pipe.fold {
		f, _ := e.pipe.advanced.wait()
		f.record(e.res)
	}
}
