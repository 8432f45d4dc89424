package dwarf

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestStringNames(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{TagCompileUnit.String(), "DW_TAG_compile_unit"},
		{TagGNUCallSite.String(), "DW_TAG_GNU_call_site"},
		{TagGNUCallSiteParameter.String(), "DW_TAG_GNU_call_site_parameter"},
		{TagLLVMAnnotation.String(), "DW_TAG_LLVM_annotation"},
		{TagGNUAnnotation.String(), "DW_TAG_GNU_annotation"},
		{Tag(0x6123).String(), "Tag(0x6123)"},
		{AttrGNUAnnotation.String(), "DW_AT_GNU_annotation"},
		{AttrGNULocviews.String(), "DW_AT_GNU_locviews"},
		{AttrLLVMTagOffset.String(), "DW_AT_LLVM_tag_offset"},
		{AttrUseUTF8.String(), "DW_AT_use_UTF8"},
		{FormImplicitConst.String(), "DW_FORM_implicit_const"},
		{FormGNUStrIndex.String(), "DW_FORM_GNU_str_index"},
		{OpGNUEntryValue.String(), "DW_OP_GNU_entry_value"},
		{OpGNUParameterRef.String(), "DW_OP_GNU_parameter_ref"},
		{OpEntryValue.String(), "DW_OP_entry_value"},
		{OpCode(0xff).String(), "OpCode(0xff)"},
		{EncSignedChar.String(), "DW_ATE_signed_char"},
		{LangC11.String(), "DW_LANG_C11"},
		{UTSplitType.String(), "DW_UT_split_type"},
		{ClassLocList.String(), "ClassLocList"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// Values the task pins down.
	if TagLLVMAnnotation != 0x6000 || TagGNUAnnotation != 0x6001 || AttrGNUAnnotation != 0x2139 ||
		OpGNUEntryValue != 0xf3 || OpGNUParameterRef != 0xfa || TagGNUCallSite != 0x4109 {
		t.Error("vendor constant values changed")
	}
}

// TestGeneratedUpToDate regenerates const_string.go into a temporary file
// and compares it with the committed one.
func TestGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator with go run")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	out := filepath.Join(t.TempDir(), "const_string.go")
	cmd := exec.Command(goTool, "run", "./internal/gen", "-o", out, "const.go", "class.go")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("const_string.go")
	if err != nil {
		t.Fatal(err)
	}
	// The header names the output path; compare from the package clause.
	cut := func(b []byte) []byte { return b[bytes.Index(b, []byte("package ")):] }
	if !bytes.Equal(cut(got), cut(want)) {
		t.Error("const_string.go is stale: run go generate ./loader/dwarf")
	}
}
