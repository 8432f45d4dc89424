package encode

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// TestCorpusDeterministicAcrossJobs: the kernel's BTF is the same bytes
// whatever the number of workers (1, 2 and 8, more than the machine's
// CPUs) and with the names mapped beside the splice (as on many CPUs),
// and a second encode with the same number gives the same bytes again.
// The function decisions are the same too.
func TestCorpusDeterministicAcrossJobs(t *testing.T) {
	want := encodeCorpusDefault(t) // Jobs 2, shared with the other corpus tests
	path := corpus.Vmlinux(t)
	for _, c := range []struct {
		name string
		jobs int
		// names beside the splice, as on 4 CPUs or more (namesBesideFrom)
		names bool
	}{{"j2-again", 2, false}, {"j1", 1, false}, {"j8", 8, false}, {"j2-names-beside", 2, true}} {
		t.Run(c.name, func(t *testing.T) {
			res, raw := encodeBytes(t, path, Options{Features: features.Default(), Jobs: c.jobs, namesBeside: c.names}, binary.LittleEndian)
			// An encode that drops known types wrongly may still give the
			// same bytes by running again without dropping.
			if res.KnownRedone != want.res.KnownRedone {
				t.Errorf("encode ran again without dropping known types: %q (-j2: %q)", res.KnownRedone, want.res.KnownRedone)
			}
			sameBytes(t, raw, want.raw, nil, "-j2")
			sameDecisions(t, res, want.res)
		})
	}
}

// TestCorpusModuleDeterministicAcrossJobs: ext4's split BTF on the
// reference vmlinux BTF is the same bytes with 1, 2 and 8 workers and on a
// second run.
func TestCorpusModuleDeterministicAcrossJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes ext4 four times; skipped with -short")
	}
	base, baseRaw := referenceBase(t)
	ko := corpus.Module(t, "ext4")
	opts := func(jobs int) Options { return Options{Features: features.Default(), Jobs: jobs, Base: base} }
	first, want := encodeBytes(t, ko, opts(2), binary.LittleEndian)
	for _, c := range []struct {
		name string
		jobs int
	}{{"j2-again", 2}, {"j1", 1}, {"j8", 8}} {
		t.Run(c.name, func(t *testing.T) {
			res, raw := encodeBytes(t, ko, opts(c.jobs), binary.LittleEndian)
			sameBytes(t, raw, want, baseRaw, "-j2")
			sameDecisions(t, res, first)
		})
	}
}

func encodeBytes(t *testing.T, path string, opts Options, order binary.ByteOrder) (*Result, []byte) {
	t.Helper()
	res, err := Encode(path, opts)
	if err != nil {
		t.Fatalf("encode %s with %d jobs: %v", path, opts.Jobs, err)
	}
	raw, err := res.Types.Marshal(order)
	if err != nil {
		t.Fatal(err)
	}
	return res, raw
}

// sameBytes fails unless got equals want byte for byte; it says where they
// first differ and whether they differ by content or only in order.
func sameBytes(t *testing.T, got, want, base []byte, wantName string) {
	t.Helper()
	at := firstDiff(got, want)
	if at < 0 {
		return
	}
	msg := fmt.Sprintf("output differs from %s's at byte %d (%d and %d bytes)", wantName, at, len(got), len(want))
	if at < btfHeaderLen {
		msg += " (in the header)"
	}
	a, errA := btfdiff.FromBytes("this", got, base)
	b, errB := btfdiff.FromBytes(wantName, want, base)
	if errA != nil || errB != nil {
		t.Fatalf("%s; decoding: %v, %v", msg, errA, errB)
	}
	rep := btfdiff.Compare(b, a)
	if rep.Equal() {
		msg += "; the same types by content, in another order or with another string table"
	} else {
		msg += fmt.Sprintf("; by content %d keys only in %s's, %d only in this one%s", len(rep.OnlyA), wantName,
			len(rep.OnlyB), examples(rep, "FUNC")+examples(rep, "STRUCT"))
	}
	t.Error(msg)
}

// btfHeaderLen is the size of the raw BTF header Marshal writes.
const btfHeaderLen = 32

// firstDiff returns the first offset where a and b differ, -1 if equal.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// sameFacts fails t unless got's function facts and instances print as
// want's, which wantName names.
func sameFacts(t *testing.T, got, want *Result, wantName string) {
	t.Helper()
	if g, w := fmt.Sprintf("%+v", got.Functions), fmt.Sprintf("%+v", want.Functions); g != w {
		t.Errorf("function facts differ from %s (%d vs %d bytes printed)", wantName, len(g), len(w))
	}
	if g, w := fmt.Sprintf("%+v", got.Instances), fmt.Sprintf("%+v", want.Instances); g != w {
		t.Errorf("instances differ from %s (%d vs %d bytes printed)", wantName, len(g), len(w))
	}
}

// sameDecisions fails unless both encodes decided the same function groups
// the same way, with the same final reasons.
func sameDecisions(t *testing.T, got, want *Result) {
	t.Helper()
	if len(got.Functions) != len(want.Functions) {
		t.Errorf("%d function groups, expected %d", len(got.Functions), len(want.Functions))
		return
	}
	n := 0
	for i := range got.Functions {
		g, w := got.Decisions[i], want.Decisions[i]
		if got.Functions[i].Name != want.Functions[i].Name || g.Include != w.Include || g.Final != w.Final {
			if n < 5 {
				t.Errorf("group %d: %s include=%v %q, expected %s include=%v %q", i,
					got.Functions[i].Name, g.Include, g.Final, want.Functions[i].Name, w.Include, w.Final)
			}
			n++
		}
	}
	if n > 0 {
		t.Errorf("%d of %d decisions differ", n, len(got.Functions))
	}
	if got.Before != want.Before {
		t.Errorf("%d types before dedup, expected %d", got.Before, want.Before)
	}
}

// TestCorpusPipelinedDedupNotRestarted: the pipelined dedup of the corpus
// kernel and modules finishes without starting over (which would give the
// same bytes, more slowly, so no output test would notice).
func TestCorpusPipelinedDedupNotRestarted(t *testing.T) {
	res, err := Encode(corpus.Vmlinux(t), Options{Features: features.Default(), Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.DedupRestarted != "" {
		t.Errorf("vmlinux: dedup restarted: %s", res.DedupRestarted)
	}
}
