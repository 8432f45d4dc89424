package encode

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	cbtf "github.com/cilium/ebpf/btf"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/engine"
	"github.com/btfgate/btfgate/features"
)

var (
	validEngineOnce sync.Once
	validEngines    [2]*engine.Engine
	validEngineErr  error
)

// validSets are the feature sets FuzzEncodeOutputValid encodes with:
// default, and default,global_var,true_signature (DATASECs of every
// section, clones).
func validSets() [2]features.Set {
	all := features.Default()
	all.GlobalVar, all.TrueSignature = true, true
	return [2]features.Set{features.Default(), all}
}

// validSeedMax and validInputMax bound FuzzEncodeOutputValid's inputs:
// seeds are the fixtures up to the first, and a mutated input past the
// second is not encoded. The fuzzer minimizes every new input it finds,
// in time that grows with the input's length, so small inputs keep it
// trying new ones.
const (
	validSeedMax  = 8 << 10
	validInputMax = 32 << 10
)

// FuzzEncodeOutputValid is the output validator's fuzz target: whatever
// Encode returns without an error, from a mutated small fixture, must
// marshal, parse back to the same bytes, pass btf.Types.Validate (the
// kernel's rules) after the round trip, be loaded by the running kernel
// (for a 64-bit object of this machine's byte order, where the kernel
// lets this process load BTF) and be read by bpftool btf dump
// (where bpftool is installed). Seeds: the fixtures up to validSeedMax,
// with both feature sets. The two policy engines are compiled once per
// process and shared by every input.
func FuzzEncodeOutputValid(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/fixtures/*.o")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= validSeedMax {
			f.Add(data, false)
			f.Add(data, true)
		}
	}
	sets := validSets()
	validEngineOnce.Do(func() {
		for i, s := range sets {
			if validEngines[i], validEngineErr = engine.New(context.Background(), engine.Config{Features: s}); validEngineErr != nil {
				return
			}
		}
	})
	if validEngineErr != nil {
		f.Fatal(validEngineErr)
	}
	bpftool, _ := exec.LookPath("bpftool")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, all bool) {
		if len(data) > validInputMax {
			return
		}
		i := 0
		if all {
			i = 1
		}
		in := filepath.Join(dir, "in.o")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Encode(in, Options{Features: sets[i], Jobs: 1, Policy: validEngines[i]})
		if err != nil {
			return
		}
		checkOutputValid(t, res, filepath.Join(dir, "out.btf"), bpftool, hostLike(data))
	})
}

// hostLike reports whether the ELF image data is of this machine's kind
// as far as BTF goes: 64-bit and of its byte order. The running kernel
// sizes a pointer as its own, so it refuses a 32-bit object's DATASEC
// entries of pointers ("Invalid size"), written for a 32-bit kernel.
func hostLike(data []byte) bool {
	if len(data) < 6 || data[4] != 2 { // ELFCLASS64
		return false
	}
	little := binary.NativeEndian.Uint16([]byte{1, 0}) == 1
	return (data[5] == 1) == little // ELFDATA2LSB
}

// checkOutputValid asserts what FuzzEncodeOutputValid asserts of one
// encode's result; bpftool "" skips bpftool's part, kernel false the
// running kernel's.
func checkOutputValid(t *testing.T, res *Result, out, bpftool string, kernel bool) {
	t.Helper()
	raw, err := res.Types.Marshal(binary.LittleEndian)
	if err != nil {
		return // the CLI reports it like an encode error, and writes nothing
	}
	back, err := btf.Parse(raw, nil)
	if err != nil {
		t.Fatalf("encoded without error, but the BTF does not parse: %v", err)
	}
	if err := back.Validate(); err != nil {
		t.Fatalf("encoded without error, but the BTF breaks the kernel's rules after a round trip: %v", err)
	}
	if again, err := back.Marshal(binary.LittleEndian); err != nil || !bytes.Equal(again, raw) {
		t.Fatalf("the parsed BTF does not marshal to the same bytes (%v)", err)
	}
	if kernel {
		// The running kernel's verdict, where it lets this process load BTF.
		h, err := cbtf.NewHandleFromRawBTF(raw)
		switch {
		case err == nil:
			h.Close()
		case bpfForbidden(err) == "":
			t.Fatalf("encoded without error and validated, but the running kernel refuses the BTF: %v", err)
		}
	}
	if bpftool == "" {
		return
	}
	if err := os.WriteFile(out, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(bpftool, "btf", "dump", "file", out).CombinedOutput(); err != nil {
		t.Fatalf("bpftool btf dump file: %v\n%.2000s", err, msg)
	}
}
