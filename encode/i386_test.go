package encode

// Tests on Debian's 32-bit x86 kernel (linux-image-6.1.0-57-686-pae-dbg):
// pahole's map has no parameter registers for i386, so every function
// taking a named struct by value goes through the packed inference, and
// i386 aligns 8-byte members to 4 inside structs. The tests run when the
// package is unpacked in corpus.I386Dir (scripts/i386-kernel.sh) and the
// reference pahole 1.31 is at hand; its output is made on first use and
// kept beside the kernel.

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btfdiff"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// TestI386KernelMatchesPahole: for default and default,global_var,
// true_signature, the i386 vmlinux BTF equals the reference pahole's by
// content (less its overlapping DATASEC entries, which btfgate drops), and every function pahole skipped is skipped for the same
// final reason.
func TestI386KernelMatchesPahole(t *testing.T) {
	if testing.Short() {
		t.Skip("encoding the i386 kernel takes seconds; skipped with -short")
	}
	vmlinux := corpus.I386Vmlinux(t)
	cases := []struct {
		name, features string
		kinds          map[string]int // the reference's counts
		skipped        int            // functions the reference skipped
		uncertain      int            // of them for an uncertain parameter location
	}{
		{"default", "default", map[string]int{"FUNC": 40755, "FUNC_PROTO": 22290, "VAR": 352, "DATASEC": 1,
			"STRUCT": 8167, "UNION": 1371, "PTR": 11797, "ENUM64": 6}, 642, 4},
		{"all", "default,global_var,true_signature", map[string]int{"FUNC": 41126, "FUNC_PROTO": 22632,
			"VAR": 22679, "DATASEC": 11, "STRUCT": 8167}, 271, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, _, err := features.Parse(c.features, true)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"--btf_features=" + c.features}
			refBTF := corpus.I386Reference(t, vmlinux, "vmlinux."+c.name, ".btf", args...)
			refSkips := corpus.I386Reference(t, vmlinux, "vmlinux."+c.name, ".skips.log", args...)
			res, err := Encode(vmlinux, Options{Features: set, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := res.Types.Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			rep, dropped := compareWithFixedReference(t, raw, refBTF)
			checkKinds(t, rep, c.kinds)
			if !rep.Equal() {
				t.Errorf("the output differs from the reference %s (less %d overlapping DATASEC entries):\n%s",
					refBTF, len(dropped), reportText(t, rep))
			}
			checkDropped(t, res, dropped)

			final, _ := readSkipLogFile(t, refSkips)
			uncertain := 0
			for _, r := range final {
				if r == "uncertain parameter location" {
					uncertain++
				}
			}
			if len(final) != c.skipped || uncertain != c.uncertain {
				t.Errorf("the reference skipped %d functions, %d for an uncertain parameter location; expected %d, %d",
					len(final), uncertain, c.skipped, c.uncertain)
			}
			got := map[string]string{}
			for i, f := range res.Functions {
				if d := res.Decisions[i]; !d.Include {
					got[f.Name] = d.Final
				}
			}
			diffMaps(t, "final skip reason", final, got)
		})
	}
}

// i386Modules are modules of the i386 kernel checked as split BTF, by
// their path under its modules directory.
func i386Modules() []string {
	return []string{"kernel/fs/ext4/ext4.ko", "kernel/drivers/net/virtio_net.ko",
		"kernel/net/netfilter/nf_conntrack.ko", "kernel/net/ipv4/tcp_bbr.ko"}
}

// TestI386ModulesMatchPahole: split BTF of some of the i386 kernel's
// modules on the reference vmlinux BTF equals the reference pahole's.
func TestI386ModulesMatchPahole(t *testing.T) {
	if testing.Short() {
		t.Skip("the i386 modules need the i386 kernel's reference BTF; skipped with -short")
	}
	vmlinux := corpus.I386Vmlinux(t)
	baseArgs := []string{"--btf_features=default"}
	basePath := corpus.I386Reference(t, vmlinux, "vmlinux.default", ".btf", baseArgs...)
	base, err := LoadBase(basePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range i386Modules() {
		name := strings.TrimSuffix(rel[strings.LastIndexByte(rel, '/')+1:], ".ko")
		t.Run(name, func(t *testing.T) {
			ko := corpus.I386Module(t, rel)
			refPath := corpus.I386Reference(t, ko, name+".default", ".btf", "--btf_features=default", "--btf_base="+basePath)
			res, err := Encode(ko, Options{Features: features.Default(), Jobs: 2, Base: base})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := res.Types.Marshal(binary.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := btfdiff.Load(refPath, basePath)
			if err != nil {
				t.Fatal(err)
			}
			baseRaw, err := readBase(basePath)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := btfdiff.FromBytes(name, raw, baseRaw)
			if err != nil {
				t.Fatal(err)
			}
			rep := btfdiff.Compare(ref, ours)
			if !rep.Equal() {
				t.Errorf("split BTF differs from the reference %s:\n%s", refPath, reportText(t, rep))
			}
			if res.Types.Len() != ref.Len() {
				t.Errorf("%d own types, reference %d", res.Types.Len(), ref.Len())
			}
			if res.Types.Len() == 0 {
				t.Errorf("no own types")
			}
		})
	}
}

// reportText is rep as btfgate diff prints it, the first 20 entries of
// each list.
func reportText(t *testing.T, rep *btfdiff.Report) string {
	t.Helper()
	var b strings.Builder
	if err := rep.WriteText(&b, 20); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
