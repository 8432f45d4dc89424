package encode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	cbtf "github.com/cilium/ebpf/btf"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
)

// TestKernelLoadsIntoRunningKernel hands our vmlinux BTF to the running
// kernel (BPF_BTF_LOAD). The kernel's BTF verifier is the strictest reader
// there is: it checks the header, every type's layout, names and references.
func TestKernelLoadsIntoRunningKernel(t *testing.T) {
	run := encodeCorpusDefault(t)
	h, err := cbtf.NewHandleFromRawBTF(run.raw)
	if err != nil {
		if why := bpfForbidden(err); why != "" {
			t.Skipf("this machine does not let us load BTF (%s): %v", why, err)
		}
		t.Fatalf("the running kernel rejected our vmlinux BTF (%d bytes, header %s): %v",
			len(run.raw), describeHeader(run.raw), err)
	}
	defer h.Close()

	// The kernel keeps what it accepted; reading it back must give the same
	// number of types.
	spec, err := h.Spec(nil)
	if err != nil {
		t.Fatalf("reading the loaded BTF back from the kernel: %v", err)
	}
	// cilium's iteration leaves out DECL_TAGs (they become Tags of their
	// targets), and void.
	decl := countKind(run.res.Types, btf.KindDeclTag)
	if got, want := countSpecTypes(t, spec), run.res.Types.Len()-decl; got != want {
		t.Errorf("the kernel's copy holds %d types besides void and DECL_TAGs; we encoded %d (and %d DECL_TAGs)",
			got, want, decl)
	}
}

// TestKernelLoadsAllFeatures: with global_var and true_signature, the
// output the running kernel would refuse in pahole's form (overlapping
// DATASEC entries) it loads in btfgate's.
func TestKernelLoadsAllFeatures(t *testing.T) {
	run := encodeCorpusAll(t)
	h, err := cbtf.NewHandleFromRawBTF(run.raw)
	if err != nil {
		if why := bpfForbidden(err); why != "" {
			t.Skipf("this machine does not let us load BTF (%s): %v", why, err)
		}
		t.Fatalf("the running kernel rejected our all-features vmlinux BTF (%d bytes): %v", len(run.raw), err)
	}
	h.Close()
}

// bpfForbidden says why an error means "this machine does not allow BPF"
// rather than "the kernel rejected the BTF", or "" if it does not.
func bpfForbidden(err error) string {
	switch {
	case errors.Is(err, syscall.EPERM), errors.Is(err, os.ErrPermission):
		return "EPERM: missing CAP_BPF/CAP_SYS_ADMIN or unprivileged BPF disabled"
	case errors.Is(err, syscall.ENOSYS):
		return "ENOSYS: the bpf syscall is not available (seccomp or kernel config)"
	case errors.Is(err, ebpf.ErrNotSupported):
		return "the kernel does not support BTF"
	}
	return ""
}

func describeHeader(raw []byte) string {
	if len(raw) < 8 {
		return "truncated"
	}
	return fmt.Sprintf("magic %#04x, version %d, hdr_len %d",
		binary.LittleEndian.Uint16(raw), raw[2], binary.LittleEndian.Uint32(raw[4:]))
}

func countSpecTypes(t *testing.T, spec *cbtf.Spec) int {
	t.Helper()
	n := 0
	for typ, err := range spec.All() {
		if err != nil {
			t.Fatalf("iterating the kernel's copy: %v", err)
		}
		if _, void := typ.(*cbtf.Void); !void {
			n++
		}
	}
	return n
}

func countKind(ts *btf.Types, k btf.Kind) int {
	n := 0
	for id := ts.FirstID(); id < ts.NextID(); id++ {
		if ts.Kind(id) == k {
			n++
		}
	}
	return n
}

// TestKernelBpftoolDump: bpftool (libbpf) parses our vmlinux BTF and prints
// one entry per type.
func TestKernelBpftoolDump(t *testing.T) {
	bpftool := needBpftool(t)
	run := encodeCorpusDefault(t)
	f := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(f, run.raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bpftool, "btf", "dump", "file", f).Output()
	if err != nil {
		t.Fatalf("bpftool btf dump file %s: %v\n%s", f, err, stderrOf(err))
	}
	entries := 0
	for _, line := range bytes.Split(out, []byte("\n")) {
		if dumpEntry.Match(line) {
			entries++
		}
	}
	if want := run.res.Types.Len(); entries != want {
		t.Errorf("bpftool printed %d type entries, we encoded %d types", entries, want)
	}
	if !bytes.Contains(out, []byte("] STRUCT 'task_struct' size=")) {
		t.Errorf("bpftool's dump has no STRUCT 'task_struct'")
	}
}

var dumpEntry = regexp.MustCompile(`^\[[0-9]+\] [A-Z_0-9]+ `)

// TestKernelWellKnownTypes parses our vmlinux BTF with cilium/ebpf (an
// independent reader) and checks a few types against the reference
// (shared/reference/pahole-1.31/amd64.default.btf).
func TestKernelWellKnownTypes(t *testing.T) {
	run := encodeCorpusDefault(t)
	spec, err := cbtf.LoadSpecFromReader(bytes.NewReader(run.raw))
	if err != nil {
		t.Fatalf("cilium/ebpf cannot parse our vmlinux BTF: %v", err)
	}

	var task *cbtf.Struct
	if err := spec.TypeByName("task_struct", &task); err != nil {
		t.Fatalf("task_struct: %v", err)
	}
	// Reference: [156] STRUCT 'task_struct' size=9792 vlen=252.
	if task.Size != 9792 || len(task.Members) != 252 {
		t.Errorf("task_struct: size %d, %d members; reference: size 9792, 252 members", task.Size, len(task.Members))
	}

	// Reference: FUNC 'perf_event_read' linkage=static, proto
	// int (struct perf_event *event, bool group), bool = TYPEDEF -> _Bool.
	var fn *cbtf.Func
	if err := spec.TypeByName("perf_event_read", &fn); err != nil {
		t.Fatalf("perf_event_read: %v", err)
	}
	if fn.Linkage != cbtf.StaticFunc {
		t.Errorf("perf_event_read: linkage %v, want static", fn.Linkage)
	}
	proto, ok := fn.Type.(*cbtf.FuncProto)
	if !ok {
		t.Fatalf("perf_event_read: type %T, want *FuncProto", fn.Type)
	}
	if got, want := protoString(proto), "int(event *perf_event, group bool)"; got != want {
		t.Errorf("perf_event_read: prototype %s, reference %s", got, want)
	}

	// A few more shapes: an ENUM64, a FLOAT, a typedef chain to an INT.
	checks := []struct {
		name, kind string
	}{
		{"list_head", "*btf.Struct"},
		{"u64", "*btf.Typedef"},
		{"gfp_t", "*btf.Typedef"},
		{"double", "*btf.Float"},
		{"_Bool", "*btf.Int"},
	}
	for _, c := range checks {
		typ, err := spec.AnyTypeByName(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := typeKind(typ); got != c.kind {
			t.Errorf("%s is a %s, want %s", c.name, got, c.kind)
		}
	}
	var u64 *cbtf.Typedef
	if err := spec.TypeByName("u64", &u64); err == nil {
		if in, ok := cbtf.UnderlyingType(u64).(*cbtf.Int); !ok || in.Size != 8 || in.Encoding != cbtf.Unsigned {
			t.Errorf("u64 resolves to %v, want an unsigned 8-byte INT", cbtf.UnderlyingType(u64))
		}
	}
}

func typeKind(t cbtf.Type) string { return fmt.Sprintf("%T", t) }

// protoString prints a prototype as ret(name type, ...), with pointers as
// *pointee and named types by name.
func protoString(p *cbtf.FuncProto) string {
	var params []string
	for _, prm := range p.Params {
		params = append(params, prm.Name+" "+shortType(prm.Type))
	}
	return shortType(p.Return) + "(" + strings.Join(params, ", ") + ")"
}

func shortType(t cbtf.Type) string {
	switch v := t.(type) {
	case nil, *cbtf.Void:
		return "void"
	case *cbtf.Pointer:
		return "*" + shortType(v.Target)
	case *cbtf.Const:
		return "const " + shortType(v.Type)
	case *cbtf.Volatile:
		return "volatile " + shortType(v.Type)
	}
	if n := t.TypeName(); n != "" {
		return n
	}
	return typeKind(t)
}

// TestKernelModuleExt4 encodes ext4.ko: an ET_REL file whose DWARF only
// makes sense after its relocations are applied. The reference module BTF
// is split BTF on the reference vmlinux; ours is not split (yet), so only
// names are compared: every FUNC the reference emits must be in ours.
func TestKernelModuleExt4(t *testing.T) {
	if testing.Short() {
		t.Skip("encoding ext4.ko takes a second; skipped with -short")
	}
	path := corpus.Module(t, "ext4")
	res, err := Encode(path, Options{Features: features.Default(), Jobs: 2})
	if err != nil {
		t.Fatalf("encode %s: %v", path, err)
	}
	ts := res.Types
	if err := ts.Err(); err != nil {
		t.Fatalf("encode %s: types carry an error: %v", path, err)
	}
	raw, err := ts.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	ours, err := cbtf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("cilium/ebpf cannot parse our ext4 BTF: %v", err)
	}

	for _, c := range []struct {
		name string
		kind btf.Kind
	}{
		{"ext4_inode_info", btf.KindStruct},
		{"ext4_sb_info", btf.KindStruct},
		{"ext4_super_block", btf.KindStruct},
		{"ext4_readdir", btf.KindFunc},
		{"ext4_file_open", btf.KindFunc},
	} {
		if ids := idsByName(ts, c.kind, c.name); len(ids) != 1 {
			t.Errorf("ext4: %d %s named %q, want 1", len(ids), c.kind, c.name)
		}
	}

	refBase, err := cbtf.LoadSpec(corpus.ReferenceFile(t, "amd64.default.btf"))
	if err != nil {
		t.Fatalf("reference vmlinux BTF: %v", err)
	}
	ref, err := cbtf.LoadSplitSpec(corpus.ReferenceFile(t, "modules/ext4.default.btf"), refBase)
	if err != nil {
		t.Fatalf("reference ext4 BTF: %v", err)
	}
	refFuncs := funcNames(t, ref)
	ourFuncs := funcNames(t, ours)
	if len(refFuncs) < 1000 {
		t.Fatalf("reference ext4 BTF has only %d FUNCs; is it the right file?", len(refFuncs))
	}
	var missing, extra []string
	for name := range refFuncs {
		if !ourFuncs[name] {
			missing = append(missing, name)
		}
	}
	// The reference is split BTF: a FUNC identical to one of the base's
	// was deduplicated into the base. Ours has no base, so it keeps those.
	baseFuncs := funcNames(t, refBase)
	for name := range ourFuncs {
		if !refFuncs[name] && !baseFuncs[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%d of the reference's %d ext4 FUNCs are missing from ours: %s",
			len(missing), len(refFuncs), head(missing, 20))
	}
	if len(extra) > 0 {
		t.Errorf("%d FUNCs in ours are neither in the reference module (which has %d) nor in its base: %s",
			len(extra), len(refFuncs), head(extra, 20))
	}

	// Every named struct, union and enum the reference module defines
	// itself (those not deduplicated into the base) is in ours too.
	var missingTypes []string
	for typ, err := range ref.All() {
		if err != nil {
			t.Fatal(err)
		}
		switch typ.(type) {
		case *cbtf.Struct, *cbtf.Union, *cbtf.Enum:
		default:
			continue
		}
		name := typ.TypeName()
		if name == "" {
			continue
		}
		// A name may be both a struct and a function (ext4_map_blocks).
		found := false
		same, _ := ours.AnyTypesByName(name)
		for _, o := range same {
			if fmt.Sprintf("%T", o) == fmt.Sprintf("%T", typ) {
				found = true
			}
		}
		if !found {
			missingTypes = append(missingTypes, fmt.Sprintf("%T %s", typ, name))
		}
	}
	if len(missingTypes) > 0 {
		sort.Strings(missingTypes)
		t.Errorf("%d named types of the reference ext4 BTF are missing from ours: %s",
			len(missingTypes), head(missingTypes, 20))
	}
}

func funcNames(t *testing.T, spec *cbtf.Spec) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for typ, err := range spec.All() {
		if err != nil {
			t.Fatal(err)
		}
		if fn, ok := typ.(*cbtf.Func); ok {
			names[fn.Name] = true
		}
	}
	return names
}

func head(s []string, n int) string {
	if len(s) > n {
		return strings.Join(s[:n], ", ") + ", ..."
	}
	return strings.Join(s, ", ")
}
