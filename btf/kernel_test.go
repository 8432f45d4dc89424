package btf

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/refbtf"
	ciliumbtf "github.com/cilium/ebpf/btf"
)

// kernelLoad loads raw BTF into the running kernel (BPF_BTF_LOAD, the
// kernel's own verifier) and reports its verdict; it skips the test where
// the kernel does not let this process load BTF.
func kernelLoad(t *testing.T, raw []byte) error {
	t.Helper()
	h, err := ciliumbtf.NewHandleFromRawBTF(raw)
	if err == nil {
		h.Close()
		return nil
	}
	if errors.Is(err, os.ErrPermission) || strings.Contains(err.Error(), "operation not permitted") || strings.Contains(err.Error(), "not supported") {
		t.Skipf("the kernel does not load BTF here: %v", err)
	}
	return err
}

// TestValidatorAgreesWithTheKernel: every hostile case the validator
// refuses, the running kernel refuses too, and what it accepts (the int
// alone, pahole's default output) the kernel loads; pahole's global_var
// output, with its overlapping DATASEC entries, the kernel refuses
// ("Invalid offset"), and loads once they are left out.
func TestValidatorAgreesWithTheKernel(t *testing.T) {
	strs := NewStrings()
	ok := NewTypes(strs)
	ok.AddInt(strs.Add("int"), 4, IntSigned, 0, 32)
	raw, err := ok.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if err := kernelLoad(t, raw); err != nil {
		t.Fatalf("the kernel refuses a lone int: %v", err)
	}
	for _, c := range validationCases() {
		strs := NewStrings()
		types := NewTypes(strs)
		types.AddInt(strs.Add("int"), 4, IntSigned, 0, 32)
		c.build(types, strs)
		raw, err := types.Marshal(binary.LittleEndian)
		if err != nil {
			continue // refused before it could be written
		}
		if err := kernelLoad(t, raw); err == nil {
			t.Errorf("%s: the validator refuses it, the kernel loads it", c.name)
		}
	}
	if err := kernelLoad(t, readReference(t, "amd64.default.btf")); err != nil {
		t.Errorf("amd64.default.btf: %v", err)
	}
	all := readReference(t, "amd64.all.btf")
	err = kernelLoad(t, all)
	if err == nil || !strings.Contains(err.Error(), "Invalid offset") {
		t.Errorf("amd64.all.btf: kernel says %v, want the overlapping DATASEC entries refused", err)
	}
	fixed, dropped, err := refbtf.WithoutOverlaps(all)
	if err != nil {
		t.Fatal(err)
	}
	if err := kernelLoad(t, fixed); err != nil {
		t.Errorf("amd64.all.btf without its %d overlapping DATASEC entries: the kernel refuses it: %v", len(dropped), err)
	}
}
