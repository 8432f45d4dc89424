package encode

import (
	"encoding/binary"
	"testing"

	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// TestCorpusModulesDiscardInfo: a module's relocated .debug_info, given
// back unit by unit as the units are spliced, is not read afterwards: each
// corpus module encodes (BTF, every function's facts and instances, every
// decision) as it does with the copy kept whole. A name still pointing
// into a discarded page would read as NULs here, and into the copy after
// the encode (unmapped then) would crash the test.
func TestCorpusModulesDiscardInfo(t *testing.T) {
	base, baseRaw := referenceBase(t)
	for _, name := range corpus.Modules() {
		t.Run(name, func(t *testing.T) {
			ko := corpus.Module(t, name)
			opts := Options{Features: features.Default(), Jobs: 2, Base: base, Detail: true}
			opts.keepInfo = true
			kept, keptRaw := encodeBytes(t, ko, opts, binary.LittleEndian)
			opts.keepInfo = false
			got, gotRaw := encodeBytes(t, ko, opts, binary.LittleEndian)
			sameBytes(t, gotRaw, keptRaw, baseRaw, "the encode keeping .debug_info")
			sameDecisions(t, got, kept)
			sameFacts(t, got, kept, "the encode keeping .debug_info")
		})
	}
}
