package loader

import (
	"os"
	"testing"

	"github.com/btfgate/btfgate/loader/elffile"
)

// fixtureFunc is one function of a walked fixture: its flags and its
// parameters, each named NAME:TYPE.
type fixtureFunc struct {
	flags  FuncFlags
	params []FuncParam
}

// walkFixture walks every unit of a committed fixture object and returns
// its functions by name (the last instance of a name wins).
func walkFixture(t *testing.T, file string, opts WalkOptions) map[string]fixtureFunc {
	t.Helper()
	data, err := os.ReadFile("../testdata/fixtures/" + file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elffile.NewFile(file, data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := newInput(f, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Arch.NrRegs == 0 {
		opts.Arch = ArchFor(f.Machine)
	}
	w := NewWalker(in.DWARF, f.ByteOrder, opts)
	out := map[string]fixtureFunc{}
	var tab TypeTable
	for i := range in.Units {
		if err := w.Walk(&in.Units[i], &tab); err != nil {
			t.Fatal(err)
		}
		for _, fn := range tab.Funcs {
			if fn.Flags&FuncDeclaration != 0 {
				continue
			}
			ps := append([]FuncParam(nil), tab.FuncParams[fn.First:fn.First+fn.Count]...)
			for k := range ps {
				if ps[k].Type != 0 {
					ps[k].Name += ":" + tab.TypeName(ps[k].Type)
				}
			}
			out[fn.Name] = fixtureFunc{flags: fn.Flags, params: ps}
		}
	}
	return out
}

// TestClangNocallAndMemberCandidates checks on clang_abi.c's clang 19
// objects that DW_CC_nocall marks exactly the functions whose ABI clang
// changed, that the piece walk records pahole's true_signature member
// candidates, and that with true_signature the ABI walk passes the member
// (its type replaces the struct's) only where the next parameter does not
// follow the whole struct.
func TestClangNocallAndMemberCandidates(t *testing.T) {
	for _, obj := range []string{"clang_abi.clang19-dwarf4.o", "clang_abi.clang19-dwarf5.o", "clang_abi.clang19-dwarf5.elf"} {
		t.Run(obj, func(t *testing.T) {
			fns := walkFixture(t, obj, WalkOptions{})
			nocall := map[string]bool{
				"agg_first_member": true, "agg_dead_tail": true, "agg_second_member": true,
				"agg_whole": true, "agg_typedef": true, "agg_const": true, "agg_union": true,
				"mem_union_dead": true, "dead_middle": true,
				"dead_stack": true, "const_arg": true, "part_inlined": true, // its out-of-line copy, through the origin
			}
			for name, fn := range fns {
				got := fn.flags&FuncSignatureChanged != 0
				if got != nocall[name] {
					t.Errorf("%s: signature changed = %v, want %v", name, got, nocall[name])
				}
			}
			for name := range nocall {
				if _, ok := fns[name]; !ok {
					t.Errorf("%s: not in the DWARF", name)
				}
			}
			member := map[string]string{ // first parameter's candidate
				"agg_first_member": "f1", "agg_dead_tail": "f1", "agg_second_member": "f2",
				"agg_typedef": "f1", "agg_const": "f2",
				"agg_whole": "", "agg_union": "", "global_pair_mid": "",
			}
			for name, want := range member {
				ps := fns[name].params
				if len(ps) == 0 {
					t.Errorf("%s: no parameters", name)
					continue
				}
				if ps[0].TrueSigMember != want || (want != "") != (ps[0].TrueSigType != 0) {
					t.Errorf("%s: member candidate %q (type %d), want %q", name, ps[0].TrueSigMember, ps[0].TrueSigType, want)
				}
				if ps[0].TrueSigApplied {
					t.Errorf("%s: member applied without true_signature", name)
				}
			}
			// The out-of-line twice precedes its abstract origin: its
			// parameters still get the origin's types.
			if ps := fns["twice"].params; len(ps) != 2 || ps[0].Name != "x:int" || ps[1].Name != "y:int" {
				t.Errorf("twice: parameters %+v, want x:int, y:int", ps)
			}

			ts := walkFixture(t, obj, WalkOptions{TrueSignature: true})
			applied := map[string]string{ // first parameter's type with true_signature
				"agg_first_member": "a:long", "agg_dead_tail": "a:long", "agg_second_member": "a:long",
				"agg_typedef": "a:long", "agg_const": "a:long", "agg_whole": "a:struct pair",
			}
			for name, want := range applied {
				ps := ts[name].params
				if len(ps) == 0 || ps[0].Name != want || ps[0].TrueSigApplied != (want == "a:long") {
					t.Errorf("%s with true_signature: first parameter %+v, want %s", name, ps, want)
				}
			}
			// agg_whole's dead parameter is dropped, and the next one is
			// where the whole struct ends (RDX).
			if ps := ts["agg_whole"].params; len(ps) != 3 || !ps[1].Optimized || ps[2].Optimized || ps[2].UnexpectedReg {
				t.Errorf("agg_whole with true_signature: %+v", ps)
			}
		})
	}
}
