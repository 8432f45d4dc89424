package btfdiff

import (
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
)

// TestDoublingAnonymousNesting: 40 levels of anonymous structs, each
// holding the next level twice, behind a function's pointer parameter: a
// 1.5 KB BTF whose content keys double per level (2^40 bytes). Loading it
// fails with the key budget's error instead of allocating gigabytes.
func TestDoublingAnonymousNesting(t *testing.T) {
	strs := btf.NewStrings()
	types := btf.NewTypes(strs)
	inner := types.AddInt(strs.Add("int"), 4, btf.IntSigned, 0, 32)
	for range 40 {
		inner = types.AddStruct(false, 0, 8, []btf.Member{{Name: strs.Add("a"), Type: inner}, {Name: strs.Add("b"), Type: inner}})
	}
	ptr := types.AddRef(btf.KindPtr, 0, inner)
	proto := types.AddFuncProto(0, []btf.Param{{Name: strs.Add("p"), Type: ptr}})
	types.AddFunc(strs.Add("f"), proto, 0)
	raw, err := types.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = FromBytes("nested.btf", raw, nil)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "nested pathologically") {
		t.Errorf("FromBytes = %v, want the key budget's error", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2<<30 {
		t.Errorf("allocated %d MiB on a %d-byte input", grew>>20, len(raw))
	}
	t.Logf("%d bytes of BTF: %v; allocated %d MiB", len(raw), err, (after.TotalAlloc-before.TotalAlloc)>>20)
}
