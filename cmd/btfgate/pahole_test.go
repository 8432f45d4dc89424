package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ciliumbtf "github.com/cilium/ebpf/btf"

	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

func TestPaholeArgsFeatureOrder(t *testing.T) {
	// pahole-behaviour.md §1.1: the first --btf_features resets what the
	// legacy flags before it set; flags after it still apply.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-J", "f"}, "var,decl_tag,type_tag,enum64"},
		{[]string{"-J", "--btf_gen_floats", "--btf_features=var", "f"}, "var"},
		{[]string{"-J", "--btf_features=var", "--btf_gen_floats", "f"}, "var,float"},
		{[]string{"-J", "--btf_features=default", "f"}, features.Default().String()},
		{[]string{"-J", "--btf_features=+true_signature", "f"}, features.Default().String() + ",true_signature"},
		{[]string{"-J", "--btf_gen_all", "f"}, ""},
		{[]string{"-J", "--skip_encoding_btf_vars", "--skip_encoding_btf_enum64", "f"}, "decl_tag,type_tag"},
		{[]string{"-J", "--btf_features=default", "--btf_features=global_var", "f"}, features.Default().String() + ",global_var"},
	} {
		p, err := parsePaholeArgs(tc.args, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		s, _, _ := features.Parse(tc.want, true)
		if p.set != s {
			t.Errorf("%v: features %s, want %s", tc.args, p.set.String(), s.String())
		}
	}
	if _, err := parsePaholeArgs([]string{"-J", "--btf_features_strict=var,nope", "f"}, &bytes.Buffer{}); err == nil {
		t.Error("--btf_features_strict accepted an unknown feature")
	}
	if _, err := parsePaholeArgs([]string{"-C", "task_struct", "f"}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("a non-BTF pahole option: %v", err)
	}
	p, err := parsePaholeArgs([]string{"-J", "-j4", "--lang_exclude=rust", "--btf_base", "base", "--btf_encode_detached=o", "in"}, &bytes.Buffer{})
	if err != nil || p.jobs != 4 || p.base != "base" || p.detached != "o" || len(p.langExcl) != 1 || p.files[0] != "in" {
		t.Errorf("parse: %+v %v", p, err)
	}
}

func TestPaholeVersionAndFeatures(t *testing.T) {
	var out bytes.Buffer
	if err := runPahole([]string{"--version"}, &out, &out); err != nil || strings.TrimSpace(out.String()) != "v1.31" {
		t.Errorf("--version: %q %v", out.String(), err)
	}
	out.Reset()
	if err := runPahole([]string{"--supported_btf_features"}, &out, &out); err != nil || strings.Count(out.String(), ",") != 14 {
		t.Errorf("--supported_btf_features: %q %v", out.String(), err)
	}
}

// TestPaholeFrontEndSameBytes: the front end and btfgate encode give the
// same bytes for the same features.
func TestPaholeFrontEndSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the corpus kernel")
	}
	vmlinux := corpus.Vmlinux(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.btf"), filepath.Join(dir, "b.btf")
	if err := runPahole([]string{"-J", "-j2", "--btf_features=default", "--btf_encode_detached=" + a, vmlinux}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "encode", "--features=default", "--summary", "none", "-o", b, vmlinux); err != nil {
		t.Fatal(err)
	}
	ra, _ := os.ReadFile(a)
	rb, _ := os.ReadFile(b)
	if len(ra) == 0 || !bytes.Equal(ra, rb) {
		t.Errorf("front end %d bytes, encode %d bytes: differ", len(ra), len(rb))
	}
}

// TestPaholeWritesModuleBTF: "pahole -J --btf_base vmlinux X.ko" adds a
// non-allocated .BTF to the module, as Kbuild's modfinal step expects.
func TestPaholeWritesModuleBTF(t *testing.T) {
	src := corpus.Module(t, "tcp_bbr")
	base := corpus.ReferenceFile(t, "amd64.default.btf")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	ko := filepath.Join(t.TempDir(), "tcp_bbr.ko")
	if err := os.WriteFile(ko, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runPahole([]string{"-J", "--btf_features=default", "--btf_base", base, ko}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(ko)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".BTF")
	if s == nil || s.Flags&elf.SHF_ALLOC != 0 {
		t.Fatalf(".BTF section: %+v", s)
	}
	raw, _ := s.Data()
	ref, _ := os.ReadFile(corpus.ReferenceFile(t, "modules/tcp_bbr.default.btf"))
	if len(raw) != len(ref) {
		t.Errorf(".BTF is %d bytes, the reference split BTF %d", len(raw), len(ref))
	}

	// cilium/ebpf reads it back as split BTF on the base. (Its
	// LoadSplitSpec cannot read a .ko's .BTF section directly — it fails
	// with "no valid BTF header" on Debian's own modules too — so it gets
	// the section's bytes.)
	baseSpec, err := ciliumbtf.LoadSpec(base)
	if err != nil {
		t.Fatal(err)
	}
	rawPath := filepath.Join(t.TempDir(), "tcp_bbr.btf")
	if err := os.WriteFile(rawPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := ciliumbtf.LoadSplitSpec(rawPath, baseSpec)
	if err != nil {
		t.Fatalf("cilium LoadSplitSpec: %v", err)
	}
	var fn *ciliumbtf.Func
	if err := spec.TypeByName("bbr_main", &fn); err != nil {
		t.Errorf("bbr_main not found by cilium: %v", err)
	}
	// ...and so does bpftool (-B: base BTF).
	if _, err := exec.LookPath("bpftool"); err != nil {
		t.Log("bpftool not installed; skipping its check")
		return
	}
	out, err := exec.Command("bpftool", "-B", base, "btf", "dump", "file", ko).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("FUNC 'bbr_main'")) {
		t.Errorf("bpftool -B BASE btf dump file X.ko: %v\n%.500s", err, out)
	}
}

func TestPaholeStyleCommandLines(t *testing.T) {
	for args, want := range map[string]bool{
		"--version": true, "-J --btf_features=default vmlinux": true, "-j2 -J x": true,
		"encode -o x y": false, "--help": false, "-h": false, "": false,
	} {
		if got := paholeStyle(strings.Fields(args)); got != want {
			t.Errorf("paholeStyle(%q) = %v, want %v", args, got, want)
		}
	}
}
