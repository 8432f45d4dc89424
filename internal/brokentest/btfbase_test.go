package brokentest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/encode"
	"github.com/btfgate/btfgate/features"
)

// rawBTF builds a BTF blob from a header and type and string sections.
func rawBTF(order interface {
	binary.ByteOrder
	binary.AppendByteOrder
}, types []uint32, strs string, edit func(h []byte)) []byte {
	h := make([]byte, 24)
	order.PutUint16(h, 0xeb9f)
	h[2] = 1
	order.PutUint32(h[4:], 24)
	order.PutUint32(h[8:], 0)
	order.PutUint32(h[12:], uint32(4*len(types)))
	order.PutUint32(h[16:], uint32(4*len(types)))
	order.PutUint32(h[20:], uint32(len(strs)))
	if edit != nil {
		edit(h)
	}
	b := h
	for _, w := range types {
		b = order.AppendUint32(b, w)
	}
	return append(b, strs...)
}

// info is a btf_type info word.
func info(kind, vlen uint32) uint32 { return kind<<24 | vlen }

type btfCase struct {
	name     string
	data     []byte
	mustFail bool
}

// btfBaseCases are raw BTF blobs that are not BTF, or broken BTF.
func btfBaseCases(tb testing.TB) []btfCase {
	le := binary.LittleEndian
	res, err := encode.Encode(fixturePath("types.gcc-dwarf5.o"), encode.Options{Features: features.Default(), Jobs: 1, Policy: policy(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	good, err := res.Types.Marshal(le)
	if err != nil {
		tb.Fatal(err)
	}
	goodBE, err := res.Types.Marshal(binary.BigEndian)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	intT := []uint32{1, info(1, 0), 4, 0x20} // INT "a" size 4, 32 bits
	var cs []btfCase
	add := func(name string, b []byte, must bool) { cs = append(cs, btfCase{name, b, must}) }
	add("empty", nil, true)
	add("one-byte", []byte{0x9f}, true)
	add("zeros-24", make([]byte, 24), true)
	add("random-1k", random(1024), true)
	add("magic-then-random", append([]byte{0x9f, 0xeb, 1, 0}, random(200)...), true)
	add("elf-fixture", readFixture(tb, "types.gcc-dwarf5.o"), true)
	add("yaml", []byte("features: default\n"), true)
	add("version-2", rawBTF(le, intT, "\x00a\x00", func(h []byte) { h[2] = 2 }), true)
	add("hdr_len-huge", rawBTF(le, intT, "\x00a\x00", func(h []byte) { le.PutUint32(h[4:], 0xffffffff) }), true)
	add("hdr_len-small", rawBTF(le, intT, "\x00a\x00", func(h []byte) { le.PutUint32(h[4:], 8) }), true)
	add("type_len-huge", rawBTF(le, intT, "\x00a\x00", func(h []byte) { le.PutUint32(h[12:], 0xfffffffc) }), true)
	add("str_off-huge", rawBTF(le, intT, "\x00a\x00", func(h []byte) { le.PutUint32(h[16:], 0xfffffff0) }), true)
	add("str_len-huge", rawBTF(le, intT, "\x00a\x00", func(h []byte) { le.PutUint32(h[20:], 0xffffffff) }), true)
	add("str_off-wraps", rawBTF(le, intT, "\x00a\x00", func(h []byte) {
		le.PutUint32(h[16:], 0xffffffff)
		le.PutUint32(h[20:], 2)
	}), true)
	add("type_off-misaligned", rawBTF(le, intT, "\x00a\x00", func(h []byte) { le.PutUint32(h[8:], 1) }), true)
	add("vlen-max-no-data", rawBTF(le, []uint32{1, info(4, 0xffffff), 8}, "\x00a\x00", nil), true)
	add("vlen-0xffff-no-data", rawBTF(le, []uint32{1, info(4, 0xffff), 8}, "\x00a\x00", nil), true)
	add("kind-unknown", rawBTF(le, []uint32{1, info(31, 0), 8}, "\x00a\x00", nil), true)
	add("name-outside-strings", rawBTF(le, []uint32{0xffffff, info(1, 0), 4, 0x20}, "\x00a\x00", nil), true)
	add("ref-past-last", rawBTF(le, []uint32{0, info(2, 0), 0xfffff}, "\x00", nil), true)
	add("strings-unterminated", rawBTF(le, intT, "\x00a", nil), true)
	add("strings-no-leading-nul", rawBTF(le, intT, "ba\x00", nil), true)
	add("string-section-empty", rawBTF(le, []uint32{0, info(2, 0), 0}, "", nil), false)
	add("million-ptrs-claimed", rawBTF(le, []uint32{0, info(2, 0), 0}, "\x00", func(h []byte) { le.PutUint32(h[12:], 12_000_000) }), true)
	// The real thing, broken.
	for k := 1; k <= 30; k++ {
		off := len(good) * k / 31
		add(fmt.Sprintf("good-trunc-%d", off), good[:off:off], true)
	}
	for k := 0; k < 40; k++ {
		off := rng.IntN(len(good))
		b := append([]byte(nil), good...)
		b[off] ^= byte(1 + rng.IntN(255))
		add(fmt.Sprintf("good-flip-%d", off), b, false)
	}
	for k := 0; k < 10; k++ {
		off := rng.IntN(len(goodBE))
		b := append([]byte(nil), goodBE...)
		b[off] ^= byte(1 + rng.IntN(255))
		add(fmt.Sprintf("good-be-flip-%d", off), b, false)
	}
	add("good", good, false)
	return cs
}

// parseChecked runs btf.Parse, catching panics and measuring allocations.
func parseChecked(data []byte, base *btf.Types) (t *btf.Types, panicked any, stack []byte, alloc uint64, err error) {
	inProcess.Lock()
	defer inProcess.Unlock()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	func() {
		defer func() {
			if p := recover(); p != nil {
				panicked, stack = p, debug.Stack()
			}
		}()
		t, err = btf.Parse(data, base)
	}()
	runtime.ReadMemStats(&after)
	return t, panicked, stack, after.TotalAlloc - before.TotalAlloc, err
}

// TestBrokenBTFBase parses raw BTF that is not BTF, as a base and as split
// BTF on a base, and passes it to btfgate encode --btf_base.
func TestBrokenBTFBase(t *testing.T) {
	cases := btfBaseCases(t)
	baseRes, err := encode.Encode(fixturePath("types.gcc-dwarf5.so"), encode.Options{Features: features.Default(), Jobs: 1, Policy: policy(t)})
	if err != nil {
		t.Fatal(err)
	}
	baseRaw, err := baseRes.Types.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	base, err := btf.Parse(baseRaw, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The honest work: the same command with the intact base the cases
	// were made from.
	var honest int64
	for _, c := range cases {
		if c.name == "good" {
			good := filepath.Join(t.TempDir(), "good.btf")
			if err := os.WriteFile(good, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			honest = honestPeak(t, "btf base good", false, "encode", "--summary=none", "--btf_base", good,
				"-o", filepath.Join(t.TempDir(), "out.btf"), fixturePath("types.gcc-dwarf5.o"))
		}
	}
	rejected := 0
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				failed := checkBTFCase(t, c, base, honest)
				summary.add("btf base", failed)
				if failed {
					inProcess.Lock()
					rejected++
					inProcess.Unlock()
				}
			})
		}
	})
	t.Logf("btf base: %d cases, %d rejected", len(cases), rejected)
}

func checkBTFCase(t *testing.T, c btfCase, base *btf.Types, honest int64) bool {
	limit := uint64(64<<20) + 64*uint64(len(c.data))
	for _, b := range []*btf.Types{nil, base} {
		_, p, stack, alloc, err := parseChecked(c.data, b)
		what := "btf.Parse"
		if b != nil {
			what = "btf.Parse (split)"
		}
		if p != nil {
			t.Fatalf("%s panicked: %v\n%s", what, p, stack)
		}
		if alloc > limit {
			t.Errorf("%s allocated %d MiB for %d bytes", what, alloc>>20, len(c.data))
		}
		if err == nil {
			if c.mustFail && b == nil {
				t.Errorf("%s accepted it", what)
			}
			continue
		}
		var pe *btf.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %T is not a *btf.ParseError: %v", what, err, err)
		}
		if !strings.Contains(err.Error(), "offset 0x") {
			t.Errorf("%s: error does not give the offset: %v", what, err)
		}
	}

	// The CLI with the blob as --btf_base.
	dir := t.TempDir()
	basePath := filepath.Join(dir, "base-"+fileName(c.name)+".btf")
	if err := os.WriteFile(basePath, c.data, 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, timeoutFor(false), "encode", "--summary=none", "--btf_base", basePath, "-o", filepath.Join(outDir, "out.btf"),
		fixturePath("types.gcc-dwarf5.o"))
	summary.notePeak(classOf("btf base", c.name), "btf base "+c.name, r.maxRSS, honest)
	switch {
	case r.timedOut:
		t.Fatalf("btfgate encode --btf_base %s: no result after %v", basePath, r.duration)
	case r.exit != 0 && r.exit != 1:
		t.Fatalf("btfgate encode --btf_base %s: exit status %d (crash):\n%s", basePath, r.exit, head(r.stderr, 40))
	case r.exit == 0:
		if c.mustFail {
			t.Errorf("btfgate encode --btf_base %s succeeded", basePath)
		}
		return false
	}
	line := strings.TrimSuffix(r.stderr, "\n")
	if strings.Contains(line, "\n") || !strings.HasPrefix(line, "btfgate: ") || !strings.Contains(line, basePath) {
		t.Errorf("btfgate encode --btf_base: want one error line naming %s, got:\n%s", basePath, r.stderr)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Errorf("failed encode left %d entries in the output directory", len(entries))
	}
	return true
}
