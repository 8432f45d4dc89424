package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/cilium/ebpf/btf"
)

// loadKernelBTF reads a /sys/kernel/btf file, checks that it holds the
// bytes the host hashed (wantSHA256, hex), and decodes every type: as base
// BTF when base is nil, else as split BTF on base. It returns the spec and
// the number of types decoded.
func loadKernelBTF(path, wantSHA256 string, base *btf.Spec) (*btf.Spec, int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != wantSHA256 {
		return nil, 0, fmt.Errorf("%s: %d bytes with SHA-256 %s, want the .BTF section built, %s", path, len(raw), got, wantSHA256)
	}
	var spec *btf.Spec
	if base == nil {
		spec, err = btf.LoadSpecFromReader(bytes.NewReader(raw))
	} else {
		spec, err = btf.LoadSplitSpecFromReader(bytes.NewReader(raw), base)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	n := 0
	for _, err := range spec.All() {
		if err != nil {
			return nil, 0, fmt.Errorf("%s: type %d: %w", path, n+1, err)
		}
		n++
	}
	return spec, n, nil
}

// hasFunc reports whether spec has a FUNC named name.
func hasFunc(spec *btf.Spec, name string) error {
	var fn *btf.Func
	if err := spec.TypeByName(name, &fn); err != nil {
		return fmt.Errorf("FUNC %s: %w", name, err)
	}
	return nil
}
